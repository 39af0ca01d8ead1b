package io.llmgw.extproc.rollout;

import io.llmgw.adapters.Adapters;
import io.llmgw.api.AdapterTarget;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.Residency;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned adapters (model-mesh's vmodels): when a route's only target changes from one loadable adapter to another,
 * the new one is loaded first, to as many copies as the old one has, while requests keep going to the old one; traffic
 * moves once that is done,
 * and the old one is unloaded from each pod as soon as nothing is in flight for it there. Clients never wait for the
 * new version's load, and neither version can be evicted while the rollout runs. Weighted targets (a canary) are not a rollout: both stay resident.
 */
public final class Rollouts {
  private static final Logger LOG = LoggerFactory.getLogger(Rollouts.class);

  /** A rollout under way: {@code from} still serves while {@code to} loads. */
  record Rollout(String from, String to) {}

  private final Adapters adapters;
  private final Datastore datastore;
  private final ScheduledExecutorService scheduler;
  private final long drainCheckMillis;
  private final Map<RouteKey, Rollout> active = new ConcurrentHashMap<>();
  private final Map<String, ScheduledFuture<?>> draining = new ConcurrentHashMap<>();
  private Topology previous;

  /** @param drainCheck how often a replaced version is checked for idle copies to unload */
  public Rollouts(Adapters adapters, Datastore datastore, ScheduledExecutorService scheduler, Duration drainCheck) {
    this.adapters = adapters;
    this.datastore = datastore;
    this.scheduler = scheduler;
    this.drainCheckMillis = drainCheck.toMillis();
  }

  /** A new configuration: every route whose single loadable target changed starts a rollout. */
  public synchronized void onChange(Topology next) {
    if (previous != null) {
      Map<RouteKey, LLMRoute> before = new HashMap<>();
      for (RouteView v : previous.routesByModel().values()) {
        before.put(v.key(), v.route());
      }
      for (RouteView view : next.routesByModel().values()) {
        AdapterTarget to = onlyLoadable(view.route());
        AdapterTarget from = onlyLoadable(before.get(view.key()));
        if (to != null && from != null && !to.name().equals(from.name())) {
          start(view.key(), from.name(), to, view);
        }
      }
    }
    previous = next;
  }

  private void start(RouteKey routeKey, String from, AdapterTarget to, RouteView view) {
    int copies = Residency.holders(from, datastore.states(view.pools())).size();
    if (copies == 0) {
      return; // nothing serves the old version: requests load the new one as usual
    }
    active.put(routeKey, new Rollout(from, to.name()));
    adapters.pins().pin(from);
    adapters.pins().pin(to.name());
    LOG.info("route {}: rolling out {} to {} copies while {} keeps serving", routeKey, to.name(), copies, from);
    adapters.loads().prefetch(to.name(), to.source(), () -> datastore.states(view.pools()))
        .thenCompose(address -> matchCopies(to, copies, view))
        .whenComplete((ok, error) -> {
          adapters.pins().unpin(to.name());
          adapters.pins().unpin(from);
          active.remove(routeKey);
          if (error != null) {
            LOG.warn("route {}: {} could not be loaded ({}); requests for it now load it themselves", routeKey,
                to.name(), error.getMessage());
            return;
          }
          LOG.info("route {}: {} is resident; traffic moves to it and {} is unloaded when idle", routeKey, to.name(),
              from);
          drain(from, view);
        });
  }

  /** Adds copies of the new version until it has as many as the old one had (a failed copy ends it: fewer is fine). */
  private CompletableFuture<Void> matchCopies(AdapterTarget to, int copies, RouteView view) {
    if (Residency.holders(to.name(), datastore.states(view.pools())).size() >= copies) {
      return CompletableFuture.completedFuture(null);
    }
    return adapters.loads().addCopy(to.name(), to.source(), () -> datastore.states(view.pools()))
        .handle((address, error) -> error == null ? matchCopies(to, copies, view)
            : CompletableFuture.<Void>completedFuture(null))
        .thenCompose(next -> next);
  }

  /**
   * The version still serving a request for {@code target} of {@code route}: during a rollout to {@code target}, the
   * old one, while it is resident somewhere; null otherwise (the target itself serves).
   */
  public String serving(RouteKey route, String target, List<PoolView> pools) {
    Rollout r = active.get(route);
    if (r == null || !r.to().equals(target)
        || Residency.holders(r.from(), datastore.states(pools)).isEmpty()) {
      return null;
    }
    return r.from();
  }

  private void drain(String adapter, RouteView view) {
    draining.computeIfAbsent(adapter, a -> scheduler.scheduleWithFixedDelay(() -> {
      if (stillWanted(adapter) || adapters.eviction().unloadWhereIdle(adapter, datastore.states(view.pools())) == 0) {
        ScheduledFuture<?> f = draining.remove(adapter);
        if (f != null) {
          f.cancel(false);
        }
      }
    }, 0, drainCheckMillis, TimeUnit.MILLISECONDS));
  }

  /** Some route (or a newer rollout) targets it again: it stays. */
  private boolean stillWanted(String adapter) {
    Topology t = datastore.topology();
    for (RouteView v : t.routesByModel().values()) {
      for (AdapterTarget target : v.route().adapter().targets()) {
        if (target.name().equals(adapter)) {
          return true;
        }
      }
    }
    return active.values().stream().anyMatch(r -> r.from().equals(adapter));
  }

  private static AdapterTarget onlyLoadable(LLMRoute route) {
    if (route == null || route.adapter().targets().size() != 1) {
      return null;
    }
    AdapterTarget t = route.adapter().targets().getFirst();
    return t.source() == null ? null : t;
  }
}
