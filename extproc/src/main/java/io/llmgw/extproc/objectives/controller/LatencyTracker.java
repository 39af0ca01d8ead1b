package io.llmgw.extproc.objectives.controller;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.Objective;
import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.objectives.core.AttainmentWindow;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyModelSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latency as the EPP observes it on response streams: feeds the per-pod load-aware model the lifecycle filters with,
 * and keeps each route objective's attainment over its last {@code window} requests of the last {@code horizon}.
 */
public final class LatencyTracker {
  private record ObjectiveId(RouteKey route, String type) {}

  private record Tracked(Objective objective, AttainmentWindow window) {}

  private final LatencyEstimator estimator;
  private final int window;
  private final long horizonMillis;
  private final Clock clock;
  /** Replaced when the objective's limit changes. */
  private final Map<ObjectiveId, Tracked> objectives = new ConcurrentHashMap<>();

  /**
   * @param window requests each objective's attainment is computed over, at most
   * @param horizon how recent those requests must be
   */
  public LatencyTracker(LatencyModelSettings model, int window, Duration horizon, Clock clock) {
    this.estimator = new LatencyEstimator(model);
    this.window = window;
    this.horizonMillis = horizon.toMillis();
    this.clock = clock;
  }

  public LatencyEstimator estimator() {
    return estimator;
  }

  public void observe(RequestTiming t) {
    estimator.observe(t.address(), t.loadAtPick(), t.promptTokens(), t.podTtftMs(), t.tpotMs());
    estimator.observeOutput(t.model(), t.outputTokens());
    for (Objective o : t.route().adapter().objectives()) {
      double value = o.type().equals(Objective.TTFT) ? t.clientTtftMs() : t.tpotMs();
      if (Double.isNaN(value)) {
        continue;
      }
      double limit = o.latency().toMillis();
      Tracked tracked = objectives.compute(new ObjectiveId(t.route().key(), o.type()),
          (k, old) -> old != null && old.window().limitMs() == limit && old.objective().equals(o)
              ? old : new Tracked(o, new AttainmentWindow(limit, window, horizonMillis)));
      tracked.window().record(value, clock.millis());
    }
  }

  /**
   * Every objective the route declares, in its declared order: those no request has been observed for yet (or
   * since their limit changed) with no verdict.
   */
  public List<ObjectiveStatus> status(LLMRoute route) {
    long now = clock.millis();
    List<ObjectiveStatus> out = new ArrayList<>();
    for (Objective o : route.adapter().objectives()) {
      Tracked t = objectives.get(new ObjectiveId(route.key(), o.type()));
      double limit = o.latency().toMillis();
      if (t == null || !t.objective().equals(o) || t.window().limitMs() != limit) {
        out.add(new ObjectiveStatus(route.key(), o.type(), limit, o.quantile(), Double.NaN, Double.NaN, 0, 0, 0, 0));
        continue;
      }
      AttainmentWindow.Recent r = t.window().recent(now, o.quantile());
      out.add(new ObjectiveStatus(route.key(), o.type(), limit, o.quantile(), r.attainment(), r.quantileMs(),
          r.samples(), r.sinceMillis(), t.window().met(), t.window().total()));
    }
    return out;
  }

  /**
   * The pools of routes below an objective's attainment, over at least {@code minRequests} recent requests: the pools
   * that ask for one more pod whatever the arithmetic says.
   */
  public Set<PoolKey> poolsMissing(List<RouteView> routes, long minRequests) {
    Set<PoolKey> out = new HashSet<>();
    for (RouteView v : routes) {
      for (ObjectiveStatus o : status(v.route())) {
        if (o.missed(minRequests)) {
          for (PoolView p : v.pools()) {
            out.add(p.key());
          }
        }
      }
    }
    return out;
  }

  /** Drops what belongs to routes and pods that are gone, and objectives a route no longer declares. */
  public void retain(List<LLMRoute> routes, Set<String> liveAddresses) {
    Set<ObjectiveId> keep = new HashSet<>();
    for (LLMRoute r : routes) {
      for (Objective o : r.adapter().objectives()) {
        keep.add(new ObjectiveId(r.key(), o.type()));
      }
    }
    objectives.keySet().retainAll(keep);
    estimator.retainOnly(liveAddresses);
  }
}
