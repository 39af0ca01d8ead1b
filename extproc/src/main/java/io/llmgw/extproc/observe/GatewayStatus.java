package io.llmgw.extproc.observe;

import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.flow.FlowControl;
import io.llmgw.extproc.flow.PoolScaling;
import io.llmgw.extproc.latency.LatencyTracker;
import io.llmgw.extproc.latency.ObjectiveStatus;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.picker.SaturationDetector;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code ./llmgw status} shows and the scaling metrics export: per pool its pods, saturation, waiting requests and
 * desired pods; per route its priority and each objective's attainment.
 */
public final class GatewayStatus {
  /** Attainment over fewer requests than this says too little to scale on. */
  static final long MIN_REQUESTS_FOR_SCALING = 20;

  private final Datastore datastore;
  private final SaturationDetector saturation;
  private final FlowControl flow;
  private final LatencyTracker latency;
  private volatile Recent recent;

  private record Recent(Report report, long builtNanos) {}

  public GatewayStatus(Datastore datastore, SaturationDetector saturation, FlowControl flow, LatencyTracker latency) {
    this.datastore = datastore;
    this.saturation = saturation;
    this.flow = flow;
    this.latency = latency;
  }

  /** One route as the status shows it. */
  public record RouteStatus(String route, String model, int priority, List<String> pools,
      List<ObjectiveStatus> objectives) {}

  public record Report(List<PoolScaling> pools, List<RouteStatus> routes) {}

  /**
   * A report at most a second old: one Prometheus scrape reads it for several gauges, and building it reads every
   * pool's endpoints.
   */
  public Report recent() {
    Recent r = recent;
    long now = System.nanoTime();
    if (r == null || now - r.builtNanos > 1_000_000_000L) {
      r = new Recent(report(), now);
      recent = r;
    }
    return r.report;
  }

  /** The report as of now. */
  public Report report() {
    List<ObjectiveStatus> objectives = latency.status();
    List<RouteStatus> routes = new ArrayList<>();
    Set<String> poolsMissing = new HashSet<>();
    for (RouteView v : datastore.topology().routesByModel().values()) {
      LLMRoute r = v.route();
      String key = r.namespace() + "/" + r.name();
      List<ObjectiveStatus> own = objectives.stream().filter(o -> o.route().equals(key)).toList();
      List<String> pools = v.pools().stream().map(PoolView::key).toList();
      for (ObjectiveStatus o : own) {
        if (!o.attained() && o.total() >= MIN_REQUESTS_FOR_SCALING) {
          poolsMissing.addAll(pools);
        }
      }
      routes.add(new RouteStatus(key, r.modelName(), r.adapter().priority(), pools, own));
    }
    routes.sort(Comparator.comparing(RouteStatus::route));
    List<PoolScaling> pools = new ArrayList<>();
    for (PoolView p : datastore.topology().poolsByKey().values()) {
      var states = datastore.states(List.of(p));
      pools.add(PoolScaling.of(p.key(), states.size(), states.isEmpty() ? 0 : saturation.saturation(states),
          flow.waiting(p.key()), saturation.queueLimit(), poolsMissing.contains(p.key())));
    }
    return new Report(pools, routes);
  }
}
