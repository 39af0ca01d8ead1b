package io.llmgw.cli.e2e;

import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.chat;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.peers.PeerKey;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 2, end to end: a replica that starts after the pods cached their documents takes what the pods' events
 * told its peer (the blocks and the batch they are as of) before it subscribes, so it routes a follow-up to the pod
 * holding its document though it never heard those blocks stored, and the pods' streams go on from there without a
 * gap.
 */
class FleetWarmStartTest {
  private static final PeerKey KEY = PeerKey.of("fleet-warm-start-secret".getBytes(StandardCharsets.US_ASCII));

  private static Epp replica(EppSettings base, int healthPort, int peerPort) throws Exception {
    return Epp.start(base.withListen(base.listen().on("127.0.0.1", 0, healthPort, 0)
        .withPeers(List.of("127.0.0.1:" + peerPort)).withPeerKey(KEY)), Clock.systemUTC());
  }

  private static SimServer served(DevProxy proxy, SimPods pods, String body) throws Exception {
    long[] before = pods.pods().stream().mapToLong(p -> p.engine().metrics().admitted()).toArray();
    HttpResponse<String> r = PrecisePrefixAcrossReplicasTest.HTTP.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + proxy.port() + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
        .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    for (int i = 0; i < before.length; i++) {
      if (pods.pods().get(i).engine().metrics().admitted() > before[i]) {
        return pods.pods().get(i);
      }
    }
    throw new AssertionError("no pod admitted the request");
  }

  @Test
  void aReplicaThatStartsLateKnowsTheBlocksItsPeerHeardAndRoutesByThem() throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).capacity(16, 64, 4096)
        .kvEvents(KvEventsConfig.DEFAULT_ON).seed(51).build();
    try (SimPods pods = SimPods.start(sim, List.of("127.0.0.241", "127.0.0.242", "127.0.0.243"), 8000)) {
      var config = Rig.writeConfig(Files.createTempFile("warm", ".yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
      EppSettings base = PrecisePrefixAcrossReplicasTest.precise(config, "sim");
      base = base.withRequests(base.requests().withDestinationFallbacks(true));
      int portA = LoopbackPorts.free();
      int portB = LoopbackPorts.free();
      Epp a = replica(base, portA, portB);
      Epp b = null;
      try (DevProxy toA = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
          .withEpps(List.of("127.0.0.1:" + a.grpcPort())))) {
        Rig.awaitScraped(a, pods);
        List<String> documents = new ArrayList<>();
        List<SimServer> cachedOn = new ArrayList<>();
        for (int doc = 0; doc < 6; doc++) {
          documents.add(("Document " + doc + " of the warm start says its piece. ").repeat(100));
          cachedOn.add(served(toA, pods, chat(documents.get(doc), "Summarise it.")));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> metric(a, "llmgw_kv_index_blocks") >= 6 * 50);
        long heard = a.engineBlocks().blocks();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
            .until(() -> a.engineBlocks().blocks() == heard); // every event of the documents applied

        b = replica(base, portB, portA); // no request since: the pods publish nothing B could hear
        assertThat(b.engineBlocks().blocks()).as("B took A's blocks before it subscribed").isEqualTo(heard);
        Epp started = b;
        try (DevProxy toB = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
            .withEpps(List.of("127.0.0.1:" + started.grpcPort())))) {
          Rig.awaitScraped(started, pods);
          for (int doc = 0; doc < 6; doc++) {
            assertThat(served(toB, pods,
                chat(documents.get(doc), ("A question about it, long enough to fill blocks of its own? ").repeat(8))))
                .as("document %d's follow-up, routed by the replica that started late", doc)
                .isSameAs(cachedOn.get(doc));
          }
          await().atMost(Duration.ofSeconds(10)).until(() -> metric(started, "llmgw_kv_event_batches_total") > 0);
          assertThat(metric(started, "llmgw_kv_event_losses_total{reason=\"gap\"}"))
              .as("each pod's stream went on from the batch the blocks were as of").isZero();
          assertThat(started.engineBlocks().blocks()).isGreaterThanOrEqualTo(heard);
        }
      } finally {
        if (b != null) {
          b.close();
        }
        a.close();
      }
    }
  }
}
