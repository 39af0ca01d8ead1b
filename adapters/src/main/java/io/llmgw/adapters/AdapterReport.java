package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Residency;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** What operators see of adapters: each one's state and copies, and the residency registry pod by pod. */
public final class AdapterReport {
  private final LoadQueue loads;
  private final FailureRecords failures;
  private final CapacityProbe capacity;

  public AdapterReport(LoadQueue loads, FailureRecords failures, CapacityProbe capacity) {
    this.loads = loads;
    this.failures = failures;
    this.capacity = capacity;
  }

  /** Every adapter in {@code adapters}, as operators see it across {@code endpoints}. */
  public List<AdapterStatus> status(Collection<String> adapters, List<EndpointState> endpoints) {
    List<AdapterStatus> out = new ArrayList<>();
    for (String adapter : adapters) {
      List<String> pods = List.copyOf(Residency.holders(adapter, endpoints));
      FailureRecords.Failure f = failures.adapterFailure(adapter);
      AdapterStatus.State state = loads.loading(adapter) ? AdapterStatus.State.LOADING
          : !pods.isEmpty() ? AdapterStatus.State.LOADED
          : f != null ? AdapterStatus.State.LOADING_FAILED
          : AdapterStatus.State.NOT_LOADED;
      out.add(new AdapterStatus(adapter, state, pods, f == null ? null : f.at(), f == null ? null : f.reason()));
    }
    return out;
  }

  /** The residency registry, pod by pod. */
  public List<PodResidency> pods(List<EndpointState> endpoints) {
    List<PodResidency> out = new ArrayList<>();
    for (EndpointState e : endpoints) {
      Set<String> active = new TreeSet<>(e.metrics().runningAdapters());
      active.addAll(e.metrics().waitingAdapters());
      out.add(new PodResidency(e.address(), capacity.capacity(e.address()), List.copyOf(e.residentAdapters()),
          List.copyOf(active), List.copyOf(new TreeSet<>(loads.loadingOn(e.address()))), failures.on(e.address())));
    }
    return out;
  }

  /** How many adapters each reachable pod holds. */
  public Map<String, Integer> residentCounts(List<EndpointState> endpoints) {
    Map<String, Integer> out = new TreeMap<>();
    for (EndpointState e : endpoints) {
      if (e.scrapeHealthy()) {
        out.put(e.address(), e.residentAdapters().size());
      }
    }
    return out;
  }
}
