package io.llmgw.picker;

import io.llmgw.picker.filters.FreshMetricsFilter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One decision: honour the proxy's subset hint, keep only endpoints with fresh metrics, let the policy rank them, and
 * answer with the primary plus up to {@code maxFallbacks} fallbacks.
 */
public final class EndpointPicker {
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofSeconds(2);
  public static final int DEFAULT_MAX_FALLBACKS = 2;

  private final Policy policy;
  private final Filter fresh;
  private final int maxFallbacks;

  public EndpointPicker(Policy policy, Clock clock, Duration staleAfter, int maxFallbacks) {
    this.policy = policy;
    this.fresh = new FreshMetricsFilter(clock, staleAfter);
    this.maxFallbacks = maxFallbacks;
  }

  public PickOutcome pick(PickRequest request, List<EndpointState> pool) {
    List<EndpointState> candidates = pool;
    if (request.subset() != null) {
      candidates = new ArrayList<>(request.subset().size());
      for (EndpointState e : pool) {
        if (request.subset().contains(e.address())) {
          candidates.add(e);
        }
      }
      if (candidates.isEmpty()) {
        return new PickOutcome.SubsetMismatch(request.subset().isEmpty()
            ? "the proxy's subset hint is empty"
            : "none of the pool's endpoints is in the proxy's subset hint " + request.subset());
      }
    }
    List<EndpointState> ready = new ArrayList<>(candidates.size());
    for (EndpointState e : candidates) {
      if (fresh.keep(request, e)) {
        ready.add(e);
      }
    }
    if (ready.isEmpty()) {
      return new PickOutcome.NoReadyEndpoint(candidates.isEmpty()
          ? "the pool has no ready pods"
          : "none of the pool's " + candidates.size() + " endpoints has fresh metrics");
    }
    List<EndpointState> ranked = policy.rank(request, ready, 1 + maxFallbacks);
    policy.onPicked(request, ranked.getFirst());
    return new PickOutcome.Picked(new Decision(ranked));
  }

  public void retainOnly(Set<String> addresses) {
    policy.retainOnly(addresses);
  }
}
