package io.llmgw.bench;

import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.PodMetrics;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PolicyShorthand;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * One routing decision over a pool of N endpoints with realistic state: 20 adapters spread so each pod has 3
 * resident, varied queues, KV use and in-flight counts. Measures the scheduling profile as the EPP assembles it (the
 * required filters, the policy's scorers, top-3 picking), with each plugin's duration recorded in the EPP's
 * Prometheus histogram ({@code timings=prometheus}, as in production) or not at all ({@code none}).
 */
public class DecisionBenchmark extends MicroBenchmark {
  @Param({"10", "100", "1000"})
  int pods;

  @Param({"seed", "scorers"})
  String policy;

  @Param({"prometheus"})
  String timings;

  List<EndpointState> pool;
  SchedulingProfile profile;
  PickRequest[] requests;
  int next;

  @Setup
  public void setup() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    SplittableRandom rnd = new SplittableRandom(42);
    pool = new ArrayList<>(pods);
    for (int i = 0; i < pods; i++) {
      Set<String> loaded = new HashSet<>();
      while (loaded.size() < 3) {
        loaded.add("adapter-" + rnd.nextInt(20));
      }
      PodMetrics m = new PodMetrics(rnd.nextInt(10), rnd.nextInt(30), rnd.nextDouble(), 4, loaded, Set.of(), loaded,
          Set.of("base"), now);
      int pending = rnd.nextInt(60);
      InFlight inFlight = new InFlight() {
        @Override
        public int forModel(String model) {
          return loaded.contains(model) ? pending : 0;
        }

        @Override
        public int total() {
          return pending;
        }

        @Override
        public int sentSince(java.time.Instant reportedAt) {
          return pending / 4;
        }
      };
      pool.add(new EndpointState(new Endpoint("pool", "pod-" + i, "10.0." + (i / 250) + "." + (i % 250), 8000),
          m, true, inFlight));
    }
    PluginTimings sinks = timings.equals("prometheus") ? new EppMetrics().pluginTimings() : PluginTimings.NONE;
    profile = PluginRegistry.builtIn().build(PolicyShorthand.parse(policy).config(50), new PluginEnv(
        Clock.fixed(now, ZoneOffset.UTC), Ticker.system(), ThreadLocalRandom::current, Duration.ofSeconds(2), 3,
        sinks), w -> {});
    PrefixHasher hasher = new PrefixHasher();
    requests = new PickRequest[64];
    for (int i = 0; i < requests.length; i++) {
      byte[] prompt = ("system prompt " + (i % 8) + " ").repeat(200).getBytes(StandardCharsets.UTF_8);
      String model = "adapter-" + (i % 20);
      long[] blocks = policy.equals("seed") ? new long[0] : hasher.blocks(model, prompt, prompt.length);
      requests[i] = PickRequest.of(model).withPrefixBlocks(blocks);
    }
  }

  /**
   * The trivial baseline measured in the same run: one pass over the same endpoints for the shortest queue, which any
   * decision must at least do. Compare {@code decide} as a ratio to it; absolute figures move with the machine.
   */
  @Benchmark
  public EndpointState baseline() {
    PickRequest r = requests[next++ & 63];
    EndpointState best = null;
    int bestQueue = Integer.MAX_VALUE;
    for (EndpointState e : pool) {
      int q = e.metrics().waitingQueue() + e.inFlight().forModel(r.model());
      if (q < bestQueue) {
        best = e;
        bestQueue = q;
      }
    }
    return best;
  }

  @Benchmark
  public PickOutcome decide() {
    PickRequest r = requests[next++ & 63];
    return profile.schedule(r, pool);
  }
}
