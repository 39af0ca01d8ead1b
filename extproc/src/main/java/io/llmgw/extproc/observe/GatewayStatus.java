package io.llmgw.extproc.observe;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.cacheprediction.core.CacheTally;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.objectives.controller.LatencyTracker;
import io.llmgw.extproc.objectives.controller.ObjectiveSettings;
import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.state.ConfigHistory;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantRow;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.Ticker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What {@code ./llmgw status} shows and the scaling metrics export: per pool its pods, saturation, waiting requests and
 * desired pods (the capacity plan's, else the saturation gauge's until the first plan); per route its priority and each
 * objective's attainment; per tenant with a budget what it spent; the capacity plan.
 */
public final class GatewayStatus {
  private static final long RECENT_NANOS = 1_000_000_000L;

  private final Datastore datastore;
  private final SaturationDetector saturation;
  private final FlowControl flow;
  private final LatencyTracker latency;
  private final ObjectiveSettings settings;
  private final Ticker ticker;
  private final TenantBudgets tenants;
  private final CacheTally cache;
  private final Supplier<Plan> capacity;
  private final TrafficHistory history;
  private final String frontDoor;
  private volatile Recent recent;

  private record Recent(Report report, long builtNanos) {}

  public GatewayStatus(Datastore datastore, SaturationDetector saturation, FlowControl flow, LatencyTracker latency,
      ObjectiveSettings settings, Ticker ticker, TenantBudgets tenants, CacheTally cache, Supplier<Plan> capacity,
      TrafficHistory history, String frontDoor) {
    this.capacity = capacity;
    this.history = history;
    this.frontDoor = frontDoor;
    this.tenants = tenants;
    this.cache = cache;
    this.datastore = datastore;
    this.saturation = saturation;
    this.flow = flow;
    this.latency = latency;
    this.settings = settings;
    this.ticker = ticker;
  }

  /** One route as the status shows it. */
  public record RouteStatus(RouteKey route, String model, int priority, List<PoolKey> pools,
      List<ObjectiveStatus> objectives) {}

  /**
   * @param configuration the configuration changes applied and refused lately, newest first
   * @param tenants each tenant with a budget: what it spent (every replica's) against its limits, what waits here
   * @param cache per pool, the prompt tokens predicted cached on the pods picked against what the engines reported
   * @param capacity the capacity plan: per pool the pods it should have and why, and the moves between variants
   * @param requestsToJudge recent requests an objective needs before a shortfall counts as missed (a pool's verdict
   *     and its routes' say the same)
   * @param frontDoor the base URL clients send to, as {@code --front-door} declares it; null when undeclared
   */
  public record Report(List<PoolScaling> pools, List<RouteStatus> routes, List<ConfigHistory.Change> configuration,
      List<TenantRow> tenants, List<CacheTally.Row> cache, Plan capacity, long requestsToJudge, String frontDoor) {}

  /**
   * A report at most a second old: one Prometheus scrape reads it for several gauges, and building it reads every
   * pool's endpoints.
   */
  public Report recent() {
    Recent r = recent;
    long now = ticker.nanos();
    if (r == null || now - r.builtNanos > RECENT_NANOS) {
      r = new Recent(report(), now);
      recent = r;
    }
    return r.report;
  }

  /** The request and time-to-first-token totals of the last minutes, for the status page's charts. */
  public TrafficHistory history() {
    return history;
  }

  /** The report as of now. */
  public Report report() {
    List<RouteStatus> routes = new ArrayList<>();
    List<RouteView> views = datastore.topology().routes();
    Set<PoolKey> poolsMissing = latency.poolsMissing(views, settings.minRequestsForScaling());
    for (RouteView v : views) {
      LLMRoute r = v.route();
      routes.add(new RouteStatus(v.key(), r.modelName(), r.adapter().priority(),
          v.pools().stream().map(PoolView::key).toList(), latency.status(r)));
    }
    routes.sort(Comparator.comparing(RouteStatus::route));
    Plan plan = capacity.get();
    Map<PoolKey, Integer> planned = new HashMap<>();
    plan.pools().forEach(p -> planned.put(p.pool(), p.desired()));
    List<PoolScaling> pools = new ArrayList<>();
    for (PoolView p : datastore.topology().poolsByKey().values()) {
      var states = datastore.states(List.of(p));
      PoolScaling gauge = PoolScaling.of(p.key(), states.size(), states.isEmpty() ? 0 : saturation.saturation(states),
          flow.waiting(p.key()), saturation.queueLimit(), poolsMissing.contains(p.key()),
          settings.targetUtilisation());
      Integer desired = planned.get(p.key());
      pools.add(desired == null ? gauge : gauge.withDesired(desired));
    }
    return new Report(pools, routes, datastore.history().recent(), List.copyOf(tenants.rows().values()),
        cache.rows(), plan, settings.minRequestsForScaling(), frontDoor);
  }
}
