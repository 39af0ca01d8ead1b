package io.llmgw.extproc.objectives;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.Objective;
import io.llmgw.api.RouteKey;
import io.llmgw.picker.latency.AttainmentWindow;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyModelSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latency as the EPP observes it on response streams: feeds the per-pod load-aware model the lifecycle filters with,
 * and keeps each route objective's attainment over its last {@code window} requests.
 */
public final class LatencyTracker {
  private record ObjectiveId(RouteKey route, String type) {}

  private record Tracked(Objective objective, AttainmentWindow window) {}

  private final LatencyEstimator estimator;
  private final int window;
  /** Replaced when the objective's limit changes. */
  private final Map<ObjectiveId, Tracked> objectives = new ConcurrentHashMap<>();

  /** @param window requests each objective's attainment is computed over */
  public LatencyTracker(LatencyModelSettings model, int window) {
    this.estimator = new LatencyEstimator(model);
    this.window = window;
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
              ? old : new Tracked(o, new AttainmentWindow(limit, window)));
      tracked.window().record(value);
    }
  }

  /** Every tracked objective of the routes that still exist, sorted by route and type. */
  public List<ObjectiveStatus> status() {
    List<ObjectiveStatus> out = new ArrayList<>();
    objectives.forEach((id, t) -> {
      AttainmentWindow w = t.window();
      out.add(new ObjectiveStatus(id.route(), id.type(), w.limitMs(), t.objective().quantile(), w.attainment(),
          w.quantileMs(t.objective().quantile()), w.met(), w.total()));
    });
    out.sort(Comparator.comparing(ObjectiveStatus::route).thenComparing(ObjectiveStatus::type));
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
