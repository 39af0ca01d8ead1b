package io.llmgw.cli.e2e;

import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.HTTP;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.chat;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.metric;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.bench.load.EppMetricsText;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 4, on a pool where events were cut: the pod's KV-event publisher dies, then its cache is emptied (which
 * its events would have said), so the gateway keeps predicting the documents it routed there while the engine reports
 * nothing cached; the third miss in a row is explained with the cause the gateway can tell: the events were lost.
 */
class EventsCutExplainedTest {
  @Test
  void missesOnAPodWhoseEventsWereLostAreExplainedAsSuch() throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).capacity(16, 64, 4096)
        .kvEvents(KvEventsConfig.DEFAULT_ON).seed(13).promptTokensDetails(true).build();
    SimPods pods = SimPods.start(sim, List.of("127.0.0.113"), 8000);
    var config = Rig.writeConfig(Files.createTempFile("cut", ".yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
    EppSettings settings = PrecisePrefixAcrossReplicasTest.precise(config, "sim");
    try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0), 1)) {
      Epp epp = rig.epps().getFirst();
      // the EPP subscribes once it is ready, and what the pod published before that is replayed only when its next
      // batch shows the gap: probes go until the EPP has applied one, so the documents' batches are not left waiting
      int[] probes = {0};
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        probes[0]++;
        send(rig, chat(("Probe " + probes[0] + " warms the subscription. ").repeat(20), "Hi."), "probe-" + probes[0]);
        return metric(epp, "llmgw_kv_event_batches_total") >= 1;
      });
      double probed = metric(epp, "llmgw_kv_index_blocks");
      String[] documents = new String[3];
      for (int doc = 0; doc < 3; doc++) {
        documents[doc] = ("Document " + doc + " holds its own facts. ").repeat(100);
        send(rig, chat(documents[doc], "Summarise it."), "first-" + doc);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> metric(epp, "llmgw_kv_index_blocks") >= probed + 3 * 50);
      for (int doc = 0; doc < 3; doc++) { // hits, which the engine reports: the pod is known to report its cache
        send(rig, chat(documents[doc], "And before?"), "before-cut-" + doc);
      }
      assertThat(sum(EppMetricsText.scrape(epp), "llmgw_prefix_prediction_misses_total")).isZero();

      pods.pods().getFirst().cutKvEvents();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> metric(epp, "llmgw_kv_event_losses_total{reason=\"disconnected\"}") >= 1);
      HttpResponse<String> reset = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.113:8000"
          + "/reset_prefix_cache")).POST(HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reset.statusCode()).isEqualTo(200);

      for (int doc = 0; doc < 3; doc++) {
        send(rig, chat(documents[doc], "What does it say?"), "after-cut-" + doc);
      }
      String text = EppMetricsText.scrape(epp);
      assertThat(sum(text, "llmgw_prefix_prediction_misses_total")).as("one run of three misses").isEqualTo(1);
      assertThat(text).contains("cause=\"events_lost\"");
      HttpResponse<String> decisions = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + epp.metricsPort() + "/admin/decisions?id=after-cut-2")).build(), HttpResponse.BodyHandlers.ofString());
      System.out
          .println("after-cut-2 explained: " + new ObjectMapper().readTree(decisions.body()).path("decisions").path(0)
              .path("afterwards"));
      assertThat(decisions.body()).as(decisions.body()).contains("engine reported 0")
          .contains("its KV-cache events were lost");
    }
  }

  private static void send(Rig rig, String body, String id) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rig.proxyPort()
        + "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .header("x-request-id", id).header("x-llmgw-explain", "1")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }
}
