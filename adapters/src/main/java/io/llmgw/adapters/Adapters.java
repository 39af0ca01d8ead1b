package io.llmgw.adapters;

import java.time.Clock;

/**
 * The adapter lifecycle's parts, wired to each other once; the EPP hands each consumer the part it needs.
 *
 * @param registry this EPP's own loads and unloads of the last seconds (with the pods' reports: what is resident)
 * @param usage when and how often each adapter was used, per pod
 * @param capacity how many adapters each pod holds at most
 * @param pins adapters that must not be evicted or scaled down
 * @param loads shared loads, placement, the load queue and retries
 * @param eviction unloading: room for loads, draining, fewer copies
 * @param report the operator's view
 * @param reaper drops what expired or belongs to pods that are gone
 */
public record Adapters(AdapterSettings settings, ResidencyRegistry registry, UsageTracker usage,
    CapacityProbe capacity, Pins pins, FailureRecords failures, LoadQueue loads, Eviction eviction,
    AdapterReport report, Reaper reaper) {

  public static Adapters create(AdapterRuntime runtime, AdapterSettings settings, Clock clock, AdapterEvents events) {
    ResidencyRegistry registry = new ResidencyRegistry(clock, settings.ownActionTtl());
    UsageTracker usage = new UsageTracker(clock);
    CapacityProbe capacity = new CapacityProbe(runtime, settings.capacityPerPod());
    Pins pins = new Pins();
    FailureRecords failures = new FailureRecords(clock, settings.failureExpiry());
    Eviction eviction = new Eviction(runtime, registry, usage, pins, events);
    LoadQueue loads = new LoadQueue(runtime, settings, clock, events, failures, registry, usage, capacity, pins,
        eviction);
    return new Adapters(settings, registry, usage, capacity, pins, failures, loads, eviction,
        new AdapterReport(loads, failures, capacity), new Reaper(failures, registry, usage, capacity, loads));
  }
}
