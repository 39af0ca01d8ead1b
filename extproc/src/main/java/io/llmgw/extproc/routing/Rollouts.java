package io.llmgw.extproc.routing;

import io.llmgw.adapters.AdapterManager;
import io.llmgw.api.AdapterTarget;
import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  private static final long DRAIN_CHECK_MS = 500;

  /** A rollout under way: {@code from} still serves while {@code to} loads. */
  record Rollout(String from, String to) {}

  /** What a request for a route's target is sent to: the target, or during a rollout the version still serving. */
  record Effective(String target, String source) {}

  private final AdapterManager adapters;
  private final Datastore datastore;
  private final ScheduledExecutorService scheduler;
  private final Map<String, Rollout> active = new ConcurrentHashMap<>();
  private final Map<String, ScheduledFuture<?>> draining = new ConcurrentHashMap<>();
  private Topology previous;

  public Rollouts(AdapterManager adapters, Datastore datastore, ScheduledExecutorService scheduler) {
    this.adapters = adapters;
    this.datastore = datastore;
    this.scheduler = scheduler;
  }

  /** A new configuration: every route whose single loadable target changed starts a rollout. */
  public synchronized void onChange(Topology next) {
    if (previous != null) {
      Map<String, LLMRoute> before = new HashMap<>();
      for (RouteView v : previous.routesByModel().values()) {
        before.put(key(v.route()), v.route());
      }
      for (RouteView view : next.routesByModel().values()) {
        LLMRoute now = view.route();
        AdapterTarget to = onlyLoadable(now);
        AdapterTarget from = onlyLoadable(before.get(key(now)));
        if (to != null && from != null && !to.name().equals(from.name())) {
          start(key(now), from.name(), to, view);
        }
      }
    }
    previous = next;
  }

  private void start(String routeKey, String from, AdapterTarget to, RouteView view) {
    List<EndpointState> states = datastore.states(view.pools());
    int copies = adapters.residentOn(from, states).size();
    if (copies == 0) {
      return; // nothing serves the old version: requests load the new one as usual
    }
    active.put(routeKey, new Rollout(from, to.name()));
    adapters.pin(from);
    adapters.pin(to.name());
    LOG.info("route {}: rolling out {} to {} copies while {} keeps serving", routeKey, to.name(), copies, from);
    adapters.prefetch(to.name(), to.source(), () -> datastore.states(view.pools()))
        .thenCompose(address -> matchCopies(to, copies, view))
        .whenComplete((ok, error) -> {
          adapters.unpin(to.name());
          adapters.unpin(from);
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
  private java.util.concurrent.CompletableFuture<Void> matchCopies(AdapterTarget to, int copies, RouteView view) {
    if (adapters.residentOn(to.name(), datastore.states(view.pools())).size() >= copies) {
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
    return adapters.addCopy(to.name(), to.source(), () -> datastore.states(view.pools()))
        .handle((address, error) -> error == null ? matchCopies(to, copies, view)
            : java.util.concurrent.CompletableFuture.<Void>completedFuture(null))
        .thenCompose(next -> next);
  }

  /** The version to send a request to: during a rollout, the old one until the new one is resident. */
  Effective effective(LLMRoute route, String target, String source, List<EndpointState> states) {
    Rollout r = active.get(key(route));
    if (r == null || !r.to().equals(target) || adapters.residentOn(r.from(), states).isEmpty()) {
      return new Effective(target, source);
    }
    return new Effective(r.from(), null);
  }

  private void drain(String adapter, RouteView view) {
    draining.computeIfAbsent(adapter, a -> scheduler.scheduleWithFixedDelay(() -> {
      if (stillWanted(adapter) || adapters.unloadWhereIdle(adapter, datastore.states(view.pools())) == 0) {
        ScheduledFuture<?> f = draining.remove(adapter);
        if (f != null) {
          f.cancel(false);
        }
      }
    }, 0, DRAIN_CHECK_MS, TimeUnit.MILLISECONDS));
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

  private static String key(LLMRoute route) {
    return route.namespace() + "/" + route.name();
  }
}
