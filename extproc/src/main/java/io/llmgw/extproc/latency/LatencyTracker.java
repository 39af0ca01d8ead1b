package io.llmgw.extproc.latency;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.Objective;
import io.llmgw.picker.latency.AttainmentWindow;
import io.llmgw.picker.latency.LatencyEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latency as the EPP observes it on response streams: feeds the per-pod load-aware model the router filters with, and
 * keeps each route objective's attainment over its last {@value #WINDOW} requests.
 */
public final class LatencyTracker {
  static final int WINDOW = 1_000;

  private final LatencyEstimator estimator = new LatencyEstimator();
  /** By route key and objective type; replaced when the objective's limit changes. */
  private final Map<String, Tracked> objectives = new ConcurrentHashMap<>();

  public LatencyEstimator estimator() {
    return estimator;
  }

  public void observe(RequestTiming t) {
    estimator.observe(t.address(), t.loadAtPick(), t.promptTokens(), t.podTtftMs(), t.tpotMs());
    String routeKey = t.route().namespace() + "/" + t.route().name();
    for (Objective o : t.route().adapter().objectives()) {
      double value = o.type().equals(Objective.TTFT) ? t.clientTtftMs() : t.tpotMs();
      if (Double.isNaN(value)) {
        continue;
      }
      double limit = o.latency().toMillis();
      Tracked tracked = objectives.compute(routeKey + "#" + o.type(), (k, old) ->
          old != null && old.window.limitMs() == limit && old.objective.equals(o)
              ? old : new Tracked(routeKey, o, new AttainmentWindow(limit, WINDOW)));
      tracked.window.record(value);
    }
  }

  /** Every tracked objective of the routes that still exist, sorted by route and type. */
  public List<ObjectiveStatus> status() {
    List<ObjectiveStatus> out = new ArrayList<>();
    for (Tracked t : objectives.values()) {
      AttainmentWindow w = t.window;
      out.add(new ObjectiveStatus(t.route, t.objective.type(), w.limitMs(), t.objective.quantile(), w.attainment(),
          w.quantileMs(t.objective.quantile()), w.met(), w.total()));
    }
    out.sort(java.util.Comparator.comparing(ObjectiveStatus::route).thenComparing(ObjectiveStatus::type));
    return out;
  }

  /** Drops what belongs to routes and pods that are gone, and objectives a route no longer declares. */
  public void retain(List<LLMRoute> routes, Set<String> liveAddresses) {
    Set<String> keep = new java.util.HashSet<>();
    for (LLMRoute r : routes) {
      for (Objective o : r.adapter().objectives()) {
        keep.add(r.namespace() + "/" + r.name() + "#" + o.type());
      }
    }
    objectives.keySet().retainAll(keep);
    estimator.retainOnly(liveAddresses);
  }

  private record Tracked(String route, Objective objective, AttainmentWindow window) {}
}
