package io.llmgw.picker;

import io.llmgw.picker.filters.ServesBelowThresholdFilter;
import io.llmgw.picker.scorers.FewestAdaptersScorer;
import io.llmgw.picker.scorers.KvCacheScorer;
import io.llmgw.picker.scorers.LeastRequestScorer;
import io.llmgw.picker.scorers.LoraAffinityScorer;
import io.llmgw.picker.scorers.PendingForModelScorer;
import io.llmgw.picker.scorers.PrefixCacheIndex;
import io.llmgw.picker.scorers.PrefixCacheScorer;
import io.llmgw.picker.scorers.QueueScorer;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** The policies we ship, each assembled from the shared filters and scorers. */
public final class Policies {
  public static final int DEFAULT_ADAPTER_PENDING_THRESHOLD = 50;
  /** GIE's default LRU capacity per server for the prefix-cache plugin. */
  public static final int PREFIX_BLOCKS_PER_ENDPOINT = 31_250;

  private Policies() {}

  /**
   * The seed PoC policy: among endpoints holding the adapter with fewer than {@code threshold} pending for it, the one
   * with the most pending (packs an adapter's traffic onto few pods; among equals, the one whose batch uses the fewest
   * adapters, so two adapters do not land on one pod by chance); otherwise, and for base-model requests, fewest active
   * adapters, then least total pending.
   */
  public static Policy seed(int threshold, Supplier<RandomGenerator> random) {
    return new BranchPolicy(
        new ServesBelowThresholdFilter(threshold),
        new ScoringPolicy(List.of(new WeightedScorer(new PendingForModelScorer(threshold), 1),
            // a tie-breaker: below one pending's step (1 / threshold) for any threshold under 1,000
            new WeightedScorer(new FewestAdaptersScorer(), 0.000_9)), random),
        new ScoringPolicy(List.of(new WeightedScorer(new FewestAdaptersScorer(), 1)), random));
  }

  /** The gateway-api-inference-extension scorer set with its documented weights. */
  public static Policy scorers(Supplier<RandomGenerator> random) {
    return new ScoringPolicy(List.of(
        new WeightedScorer(new QueueScorer(), 2),
        new WeightedScorer(new KvCacheScorer(), 2),
        new WeightedScorer(new PrefixCacheScorer(new PrefixCacheIndex(PREFIX_BLOCKS_PER_ENDPOINT)), 3),
        new WeightedScorer(new LoraAffinityScorer(), 1)), random);
  }

  /** Baseline: a plain Kubernetes Service. */
  public static Policy roundRobin() {
    return new RoundRobinPolicy();
  }

  /** Baseline: any fresh endpoint, uniformly. */
  public static Policy random(Supplier<RandomGenerator> random) {
    return new ScoringPolicy(List.of(), random);
  }

  /** Baseline: fewest requests in flight from this gateway, ties at random. */
  public static Policy leastRequest(Supplier<RandomGenerator> random) {
    return new ScoringPolicy(List.of(new WeightedScorer(new LeastRequestScorer(), 1)), random);
  }
}
