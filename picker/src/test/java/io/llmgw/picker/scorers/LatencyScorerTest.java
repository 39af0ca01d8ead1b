package io.llmgw.picker.scorers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.PodMetrics;
import io.llmgw.picker.Pods;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyModelSettings;
import io.llmgw.picker.latency.LoadSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 17, item 1: the predicted-latency scorer, cold and trained. */
class LatencyScorerTest {
  final LatencyEstimator estimator = new LatencyEstimator(LatencyModelSettings.defaults());
  final LatencyScorer scorer = new LatencyScorer(estimator, new PrefixHasher(), 1_000);

  /** Teaches a pool that behaves like a vLLM pod: prefill 0.2 ms per uncached token, a wait without an adapter slot. */
  void train(String... addresses) {
    Random r = new Random(1);
    for (int i = 0; i < 600; i++) {
      for (String a : addresses) {
        int waiting = r.nextInt(4);
        int running = r.nextInt(16);
        double cached = r.nextDouble();
        int slot = r.nextInt(3);
        long prompt = 500 + r.nextInt(3_000);
        double ttft = 15 + 40 * waiting + 0.2 * prompt * (1 - cached) + (slot == 2 ? 300 : slot == 1 ? 20 : 0)
            + r.nextGaussian();
        double tpot = 10 + 1.0 * running + r.nextGaussian() * 0.2;
        estimator.observe(a, new LoadSnapshot(waiting, running, 0.3, cached, slot), prompt, ttft, tpot);
      }
    }
  }

  static EndpointState pod(int n, int waiting, int running, Set<String> runningAdapters, int maxLoras) {
    PodMetrics m = new PodMetrics(waiting, running, 0.3, maxLoras, runningAdapters, Set.of(), runningAdapters,
        Set.of("base"), Pods.NOW);
    return Pods.pod(n, m, new Pods.Pending());
  }

  double[] score(PickRequest request, List<EndpointState> candidates) {
    double[] out = new double[candidates.size()];
    scorer.score(request, candidates, out);
    return out;
  }

  @Test
  void coldItScoresAsTheReferenceScorerSet() {
    EndpointState idle = Pods.pod(1, metrics(0, 0.1, Set.of()), new Pods.Pending());
    EndpointState busy = Pods.pod(2, metrics(4, 0.9, Set.of()), new Pods.Pending());
    double[] out = score(PickRequest.of("base"), List.of(idle, busy));
    // queue 2 × 1 + kv 2 × 0.9 + lora 1 × 1, over 8; the busy pod: kv 2 × 0.1 + lora 1
    assertThat(out[0]).isCloseTo((2 + 1.8 + 1) / 8, within(1e-9));
    assertThat(out[1]).isCloseTo((0.2 + 1) / 8, within(1e-9));
  }

  @Test
  void trainedItPrefersThePodWhereThePredictedLatencyIsLeast() {
    train("127.0.0.1:8000", "127.0.0.2:8000");
    EndpointState queued = pod(1, 3, 4, Set.of(), 0);
    EndpointState free = pod(2, 0, 4, Set.of(), 0);
    double[] out = score(PickRequest.of("base").withPromptTokens(1_000).with(RequestAttributes.MAX_OUTPUT_TOKENS, 50),
        List.of(queued, free));
    assertThat(out[1]).isEqualTo(1.0);
    // 3 waiting × 40 ms more to the first token, the same decoding and the same prefill delay for 4 running sequences
    assertThat(out[0]).isCloseTo(1715.0 / 1835, within(0.02));
  }

  @Test
  void aCachedPrefixAndAnAdapterInTheBatchAreWorthTheirPredictedTime() {
    train("127.0.0.1:8000", "127.0.0.2:8000");
    long[] blocks = new PrefixHasher().blocks("base", bytes(3_000), 3_000);
    PickRequest request = PickRequest.of("lora-a").withPrefixBlocks(blocks).withPromptTokens(750)
        .with(RequestAttributes.MAX_OUTPUT_TOKENS, 20);
    EndpointState holder = pod(1, 0, 4, Set.of("lora-a"), 2);
    EndpointState blocked = pod(2, 0, 4, Set.of("lora-b", "lora-c"), 2);
    assertThat(score(request, List.of(holder, blocked))[1]).as("no slot for lora-a: it waits ~300 ms")
        .isLessThan(0.8);

    EndpointState a = pod(1, 0, 4, Set.of("lora-a"), 4);
    EndpointState b = pod(2, 0, 4, Set.of("lora-a"), 4);
    scorer.onPicked(request, b); // b served this prompt before
    double[] out = score(request, List.of(a, b));
    assertThat(out[1]).isEqualTo(1.0);
    assertThat(out[0]).as("prefill of 750 uncached tokens, ~150 ms, on a/for a's 4 running").isLessThan(out[1]);
    assertThat(scorer.cachedShare(b.address(), blocks)).isEqualTo(1.0);
  }

  @Test
  void thePrefillADecodingBatchMustWaitForCountsAgainstABusyPod() {
    train("127.0.0.1:8000", "127.0.0.2:8000");
    // both predicted alike for the request itself (running barely moves its own TTFT), but 14 running sequences on
    // the first would each wait out its prefill
    EndpointState crowded = pod(1, 0, 14, Set.of(), 0);
    EndpointState quiet = pod(2, 0, 2, Set.of(), 0);
    PickRequest longPrompt = PickRequest.of("base").withPromptTokens(3_000).with(RequestAttributes.MAX_OUTPUT_TOKENS,
        1);
    double crowdedCost = scorer.cost(longPrompt, crowded, 1);
    double quietCost = scorer.cost(longPrompt, quiet, 1);
    assertThat(crowdedCost - quietCost).as("12 more sequences × ~600 ms of prefill").isGreaterThan(5_000);
  }

  @Test
  void thePolicyHashesPromptsAndRecordsWhatTheRequestMetBeforeItCounted() {
    PluginEnv env = new PluginEnv(Clock.fixed(Pods.NOW, ZoneOffset.UTC), Ticker.system(), () -> new Random(1),
        Duration.ofSeconds(2), 1, PluginTimings.NONE, estimator, new EngineBlockIndex(),
        new io.llmgw.picker.routed.RoutedPrefixes());
    SchedulingProfile profile = PluginRegistry.builtIn().build(PolicyShorthand.LATENCY.config(50), env, w -> {});
    assertThat(profile.prefixHasher()).isNotNull();
    long[] blocks = profile.prefixHasher().blocks("base", bytes(640), 640);
    PickRequest request = PickRequest.of("base").withPrefixBlocks(blocks).withPromptTokens(160)
        .with(RequestAttributes.MAX_OUTPUT_TOKENS, 10);
    EndpointState only = Pods.pod(1, metrics(0, 0.1, Set.of()), new Pods.Pending());
    var first = (PickOutcome.Picked) profile.schedule(request, List.of(only));
    assertThat(first.loadAtPick().cachedShare()).as("nothing sent there yet").isZero();
    var second = (PickOutcome.Picked) profile.schedule(request, List.of(only));
    assertThat(second.loadAtPick().cachedShare()).as("the first request's prompt").isEqualTo(1.0);
  }

  static byte[] bytes(int n) {
    StringBuilder sb = new StringBuilder();
    while (sb.length() < n) {
      sb.append("the quick brown fox jumps over the lazy dog ");
    }
    return sb.substring(0, n).getBytes(StandardCharsets.UTF_8);
  }
}
