package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Model-mesh's reaper (every {@code reaperPeriod}, 7 minutes by default): drops expired failure records, this EPP's
 * own actions the pods' reports have long replaced, and what it remembers of pods that are gone, so nothing grows
 * with churn.
 */
public final class Reaper {
  private final FailureRecords failures;
  private final ResidencyRegistry registry;
  private final UsageTracker usage;
  private final CapacityProbe capacity;
  private final LoadQueue loads;

  public Reaper(FailureRecords failures, ResidencyRegistry registry, UsageTracker usage, CapacityProbe capacity,
      LoadQueue loads) {
    this.failures = failures;
    this.registry = registry;
    this.usage = usage;
    this.capacity = capacity;
    this.loads = loads;
  }

  /** @param endpoints every endpoint that exists now; returns how many records and actions it dropped */
  public int reap(List<EndpointState> endpoints) {
    Set<String> live = new HashSet<>();
    endpoints.forEach(e -> live.add(e.address()));
    int dropped = failures.reap() + registry.reap(live);
    usage.retain(live);
    capacity.retain(live);
    loads.retain(live);
    return dropped;
  }
}
