package io.llmgw.picker.config;

import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyModelSettings;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * What plugins may be built with besides their parameters: time, randomness, the EPP-wide settings some of them read,
 * and where their durations are recorded.
 *
 * @param staleAfter metrics older than this are not picked (the fresh-metrics filter)
 * @param maxEndpoints primary plus fallbacks a picker answers with when its configuration does not say
 * @param estimator the EPP's per-pod latency model, which the latency scorer predicts with
 * @param engineBlocks what the pods' KV-cache events say their prefix caches hold, which the precise prefix-cache
 *     scorer reads
 * @param routedPrefixes where this replica (and its peers, when they share) routed prompts, which the approximate
 *     prefix-cache scorers read
 */
public record PluginEnv(Clock clock, Ticker ticker, Supplier<RandomGenerator> random, Duration staleAfter,
    int maxEndpoints, PluginTimings timings, LatencyEstimator estimator, EngineBlockIndex engineBlocks,
    RoutedPrefixes routedPrefixes) {
  /** With a latency model and an engine block index of its own (tests, benchmarks of the decision alone). */
  public PluginEnv(Clock clock, Ticker ticker, Supplier<RandomGenerator> random, Duration staleAfter, int maxEndpoints,
      PluginTimings timings) {
    this(clock, ticker, random, staleAfter, maxEndpoints, timings,
        new LatencyEstimator(LatencyModelSettings.defaults()), new EngineBlockIndex(), new RoutedPrefixes());
  }
}
