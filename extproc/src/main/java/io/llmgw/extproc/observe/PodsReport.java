package io.llmgw.extproc.observe;

import io.llmgw.adapters.Adapters;
import io.llmgw.adapters.PodResidency;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /admin/pods}: every pod as the EPP sees it now, pool by pool: whether its metrics are fresh and how old,
 * its queue and KV-cache use as it reported them, what this EPP sent it since, the adapters in its GPU slots, registered
 * and loading. The status page's pod table.
 */
public final class PodsReport {
  private final Datastore datastore;
  private final Adapters adapters;
  private final Clock clock;

  /**
   * One pod; {@code kvCacheUsage} is 0–1.
   *
   * @param adapters registered with the pod (vLLM lists every one it holds, in a GPU slot or not)
   * @param inGpuSlots of the adapters, those running in its batch or lately enough that they likely still sit in one of
   *     its {@code maxLoras} GPU slots (what an adapter-affinity decision counts on)
   * @param maxLoras its GPU slots for adapters, as it reports them; 0 when it does not say
   */
  public record Pod(String pool, String address, boolean healthy, double metricsAgeSeconds, int waiting, int running,
      double kvCacheUsage, int sentSinceReport, List<String> adapters, List<String> loading, List<String> inGpuSlots,
      int maxLoras) {}

  public PodsReport(Datastore datastore, Adapters adapters, Clock clock) {
    this.datastore = datastore;
    this.adapters = adapters;
    this.clock = clock;
  }

  public List<Pod> report() {
    Map<String, PodResidency> residency = new HashMap<>();
    for (PodResidency r : adapters.report().pods(datastore.allStates())) {
      residency.put(r.address(), r);
    }
    List<Pod> out = new ArrayList<>();
    for (PoolView p : datastore.topology().poolsByKey().values()) {
      for (EndpointState e : datastore.states(List.of(p))) {
        PodResidency r = residency.get(e.address());
        out.add(new Pod(p.key().toString(), e.address(), e.scrapeHealthy(),
            Math.max(0, clock.millis() - e.metrics().updatedAt().toEpochMilli()) / 1000.0, e.metrics().waitingQueue(),
            e.metrics().running(), e.metrics().kvCacheUsage(), e.queued() - e.metrics().waitingQueue(),
            r == null ? List.of() : r.resident(), r == null ? List.of() : r.loading(),
            e.metrics().recentAdapters().stream().filter(e.metrics()::warm).sorted().toList(), e.metrics().maxLoras()));
      }
    }
    return out;
  }
}
