package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unloading, the only way an adapter leaves a pod by this EPP's hand: to make room for a load, to drain a replaced
 * version, or to scale copies down. An adapter with requests in flight on a pod is never unloaded there, nor is a
 * pinned one scaled down; every unload is recorded at once, so no request is sent to a pod that is dropping it.
 */
public final class Eviction {
  private static final Logger LOG = LoggerFactory.getLogger(Eviction.class);

  private final AdapterRuntime runtime;
  private final ResidencyRegistry registry;
  private final UsageTracker usage;
  private final Pins pins;
  private final AdapterEvents events;

  public Eviction(AdapterRuntime runtime, ResidencyRegistry registry, UsageTracker usage, Pins pins,
      AdapterEvents events) {
    this.runtime = runtime;
    this.registry = registry;
    this.usage = usage;
    this.pins = pins;
    this.events = events;
  }

  /** Unloads one adapter from one pod (placement chose it as the victim); completes once the pod has let it go. */
  CompletableFuture<Void> evict(String address, String adapter) {
    registry.unloaded(address, adapter);
    return runtime.unload(address, adapter).whenComplete((ok, error) -> done(address, adapter, error));
  }

  /**
   * Unloads {@code adapter} from every reachable pod holding it with nothing in flight for it; returns how many pods
   * still hold it (busy ones), so a caller can come back until none does.
   */
  public int unloadWhereIdle(String adapter, List<EndpointState> endpoints) {
    int busy = 0;
    for (EndpointState e : endpoints) {
      if (!e.scrapeHealthy() || !e.holdsAdapter(adapter)) {
        continue;
      }
      if (e.inFlight().forModel(adapter) > 0) {
        busy++;
      } else {
        evict(e.address(), adapter);
      }
    }
    return busy;
  }

  /**
   * Scales {@code adapter} back to {@code keep} copies: unloads it from the idle holders used least recently; busy
   * copies stay, and a pinned adapter keeps all of them. Returns how many unloads it started.
   */
  public int dropCopies(String adapter, int keep, List<EndpointState> endpoints) {
    if (pins.pinned(adapter)) {
      return 0;
    }
    List<EndpointState> holders = endpoints.stream().filter(e -> e.scrapeHealthy() && e.holdsAdapter(adapter))
        .sorted(Comparator.comparing((EndpointState e) -> usage.lastUsedOn(e.address(), adapter)).reversed())
        .toList();
    int dropped = 0;
    for (EndpointState e : holders.subList(Math.min(keep, holders.size()), holders.size())) {
      if (e.inFlight().forModel(adapter) == 0) {
        evict(e.address(), adapter);
        dropped++;
      }
    }
    return dropped;
  }

  private void done(String address, String adapter, Throwable error) {
    if (error == null) {
      usage.forget(address, adapter);
      events.unloaded(adapter, address);
      LOG.info("adapter {} unloaded from {}", adapter, address);
    } else {
      registry.unloadFailed(address, adapter);
      LOG.warn("unloading adapter {} from {} failed: {}", adapter, address, LoadFailure.reason(error));
    }
  }
}
