package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.metadataDestination;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.drainRequestBody;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.routeFullDuplex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.RequestSettings;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.picker.config.PolicyShorthand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Scheduling as configured, end to end: real gRPC, real ext_proc frames, real HTTP pods. */
class SchedulingIntegrationTest {
  @Test
  void seedPolicyPacksUntilTheThresholdThenTheNextLoadedPodTakesOver() throws Exception {
    // Pods 0 and 1 have adapter-a resident; pod 2 has no adapter at all. Threshold 2 instead of the default 50.
    try (EppHarness seed = new EppHarness(3, 41, s -> s.withPolicy(PolicyShorthand.SEED, 2))) {
      seed.pods.get(0).setModels("base-model", List.of("adapter-a"));
      seed.pods.get(1).setModels("base-model", List.of("adapter-a"));
      seed.pods.get(2).setModels("base-model", List.of());
      await().atMost(Duration.ofSeconds(10)).until(
          () -> seed.epp.datastore().scrapeState(seed.pods.get(2).address()).metrics().listedAdapters().isEmpty());
      String cold = seed.pods.get(2).address();

      Map<String, Integer> perPod = new HashMap<>();
      String[] order = new String[5];
      for (int i = 0; i < 5; i++) {
        ExtProcCall call = seed.open();
        order[i] = setHeader(routeFullDuplex(call, chat("adapter-a")), EppProtocol.DESTINATION).split(",")[0];
        drainRequestBody(call);
        int running = perPod.merge(order[i], 1, Integer::sum);
        // the pod runs what it was sent, and says so in its next report (a pod's load is its report, issue 13 item 10)
        String picked = order[i];
        seed.pods.stream().filter(p -> p.address().equals(picked)).findFirst().orElseThrow()
            .setVllm(0, running, 0.1, 4, List.of(), List.of());
        await().atMost(Duration.ofSeconds(10))
            .until(() -> seed.epp.datastore().scrapeState(picked).metrics().running() == running);
      }

      assertThat(order[1]).as("second request packs onto the first's pod").isEqualTo(order[0]);
      assertThat(order[2]).as("at the threshold the other loaded pod takes over").isNotEqualTo(order[0])
          .isNotEqualTo(cold);
      assertThat(order[3]).isEqualTo(order[2]);
      assertThat(order[4]).as("both loaded pods full: the least busy pod (no batch adapters anywhere)").isEqualTo(cold);
      assertThat(perPod).containsEntry(order[0], 2).containsEntry(order[2], 2).containsEntry(cold, 1);
      assertThat(seed.inFlight(order[0])).isEqualTo(2);
    }
  }

  /**
   * Issue 48 item 5, over real frames and pods that list every registered adapter as vLLM does: a pod running the
   * adapter keeps it while its queue, at the threshold, holds only other adapters' requests; once the pod names the
   * adapter waiting, its queue counts against the adapter and the other pod running it takes over.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {3, 50})
  void seedPolicyKeepsAffinityUntilThePodSaysTheAdapterItselfWaits(int threshold) throws Exception {
    // the pool's saturation (the mean queue over the limit) must not hold the requests: that is admission's part
    try (EppHarness seed = new EppHarness(3, 51, s -> s.withPolicy(PolicyShorthand.SEED, threshold)
        .withFlow(s.flow(), new io.llmgw.picker.SaturationSettings(threshold * 3, 0.8,
            s.saturation().staleAfter())))) {
      List<String> all = List.of("adapter-a", "split-v1", "shed-me");
      seed.pods.forEach(p -> p.setModels("base-model", all));
      String busy = seed.pods.get(0).address();
      seed.pods.get(0).setVllm(threshold, 4, 0.2, 4, List.of("adapter-a", "shed-me"), List.of("shed-me"));
      seed.pods.get(1).setVllm(0, 0, 0.0, 4, List.of(), List.of());
      seed.pods.get(2).setVllm(0, 0, 0.0, 4, List.of(), List.of());
      await().atMost(Duration.ofSeconds(10)).until(() -> seed.epp.datastore().scrapeState(busy).metrics()
          .waitingQueue() == threshold);

      assertThat(pick(seed)).as("the only pod running adapter-a, its queue all shed-me's").isEqualTo(busy);

      seed.pods.get(0).setVllm(threshold, 4, 0.2, 4, List.of("adapter-a"), List.of("adapter-a"));
      await().atMost(Duration.ofSeconds(10)).until(
          () -> seed.epp.datastore().scrapeState(busy).metrics().waitingAdapters().contains("adapter-a"));
      assertThat(pick(seed)).as("adapter-a itself waits there, at the threshold").isNotEqualTo(busy);
    }
  }

  private static String pick(EppHarness harness) throws Exception {
    ExtProcCall call = harness.open();
    String picked = setHeader(routeFullDuplex(call, chat("adapter-a")), EppProtocol.DESTINATION).split(",")[0];
    call.cancel();
    return picked;
  }

  @Test
  void item9TheFallbacksOptionPutsTheSameOrderedListInTheHeaderAndTheMetadata() throws Exception {
    try (EppHarness listed = new EppHarness(2, 45,
        s -> s.withRequests(RequestSettings.defaults().withDestinationFallbacks(true)))) {
      ExtProcCall call = listed.open();
      ProcessingResponse r = routeFullDuplex(call, chat("adapter-a"));
      assertThat(setHeader(r, EppProtocol.DESTINATION)).isEqualTo(metadataDestination(r)).contains(",");
      call.cancel();
    }
  }

  @Test
  void scorersPolicySendsRequestsSharingAPromptPrefixToTheSamePod() throws Exception {
    try (EppHarness scorers = new EppHarness(3, 47, s -> s.withPolicy(PolicyShorthand.SCORERS, 50))) {
      String system = "You are a careful SQL assistant. Answer with one query. ".repeat(40);
      List<String> picked = new java.util.ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ExtProcCall call = scorers.open();
        String body = "{\"model\":\"adapter-a\",\"messages\":[{\"role\":\"system\",\"content\":\"" + system
            + "\"},{\"role\":\"user\",\"content\":\"question " + i + "\"}]}";
        picked.add(setHeader(routeFullDuplex(call, body), EppProtocol.DESTINATION));
        call.cancel();
      }
      assertThat(picked).as("prefix-cache affinity").containsOnly(picked.getFirst());
    }
  }

  @Test
  void anEppConfiguredWithTheReferenceFormatRoutesByItAndTimesEachPlugin() throws Exception {
    var config = PluginConfigFile.load(Path.of("..", "examples", "plugins-scorers.yaml"), w -> {});
    try (EppHarness file = new EppHarness(3, 51, s -> s.withScheduling(config))) {
      String system = "You answer in haiku. ".repeat(60);
      List<String> picked = new java.util.ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ExtProcCall call = file.open();
        String body = "{\"model\":\"adapter-a\",\"messages\":[{\"role\":\"system\",\"content\":\"" + system
            + "\"},{\"role\":\"user\",\"content\":\"question " + i + "\"}]}";
        picked.add(setHeader(routeFullDuplex(call, body), EppProtocol.DESTINATION));
        call.cancel();
      }
      assertThat(picked).as("the file's prefix-cache scorer at work").containsOnly(picked.getFirst());
      assertThat(file.metricsText()).contains("llmgw_plugin_duration_seconds_count{extension_point=\"scorer\","
          + "plugin_name=\"prefix-cache-scorer\",plugin_type=\"prefix-cache-scorer\"} 1") // the first of 4, sampled
          .contains("plugin_type=\"just-in-time-loader\"");
    }
  }
}
