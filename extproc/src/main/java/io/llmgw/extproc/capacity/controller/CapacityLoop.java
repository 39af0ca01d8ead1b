package io.llmgw.extproc.capacity.controller;

import io.llmgw.api.PodInfo;
import io.llmgw.api.PoolCapacity;
import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.capacity.core.CapacityPlanner;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.capacity.core.PoolDemand;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.capacity.core.Spill;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.objectives.controller.LatencyTracker;
import io.llmgw.extproc.objectives.controller.ObjectiveSettings;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the capacity plan every {@link CapacitySettings#interval}: gathers each pool's demand (arrivals, waiting
 * requests, saturation, objectives), its pods' throughput at those objectives from the latency model, its price and
 * load time, and hands them to the {@link CapacityPlanner}; logs each pool's change of plan, and once per episode a
 * pool without a price, a pool whose pods do not become ready and a pool that flaps. With peers, this replica's
 * arrivals are scaled to the fleet's ({@link FleetShare}).
 */
public final class CapacityLoop {
  private static final Logger LOG = LoggerFactory.getLogger(CapacityLoop.class);

  private final CapacitySettings settings;
  private final Datastore datastore;
  /** A pod's report older than this counts as a full pod in the saturation gauge's demand (it stopped answering). */
  static final Duration REPORTS_LATE = Duration.ofSeconds(10);
  private final SaturationDetector saturation;
  private final FlowControl flow;
  private final LatencyTracker latency;
  private final ObjectiveSettings objectives;
  private final Ticker ticker;
  private final ArrivalMeter meter;
  private final CapacityPlanner planner;
  private final BatchLimits pods;
  private final PoolThroughputs throughputs;
  // the planning thread's own
  private final Map<PoolKey, Integer> lastDesired = new HashMap<>();
  private final Map<String, Boolean> episodes = new HashMap<>();
  private final FleetShare fleet;
  private long lastNanos = Long.MIN_VALUE;
  private volatile Plan plan = Plan.EMPTY;

  public CapacityLoop(CapacitySettings settings, Datastore datastore, SaturationDetector saturation, FlowControl flow,
      LatencyTracker latency, ObjectiveSettings objectives, Ticker ticker) {
    this.settings = settings;
    this.datastore = datastore;
    // flow control's gauge takes a report 200 ms late for a full pod, which is right for admitting a request now; a
    // plan of pods for the next minutes that did so would ask for one more whenever the scraper stalls a moment
    this.saturation = new SaturationDetector(saturation.clock(), saturation.queueLimit(), saturation.kvLimit(),
        saturation.staleAfter().compareTo(REPORTS_LATE) > 0 ? saturation.staleAfter() : REPORTS_LATE);
    this.flow = flow;
    this.latency = latency;
    this.objectives = objectives;
    this.ticker = ticker;
    this.meter = new ArrivalMeter(settings.arrivalWindow().toNanos() / 1e9);
    this.fleet = new FleetShare(settings.arrivalWindow().toNanos() / 1e9);
    this.planner = new CapacityPlanner(objectives.targetUtilisation(), settings.hysteresis().toNanos());
    this.pods = new BatchLimits(address -> {
      var state = datastore.scrapeState(address);
      return state == null ? null : state.metrics();
    });
    this.throughputs = new PoolThroughputs(latency.estimator(), pods, objectives.model().headroom(),
        settings.arrivalWindow().toNanos() / 1e9);
  }

  /** The pods' batch limits, fed by the scraper ({@link BatchLimits#scraped}). */
  public BatchLimits batchLimits() {
    return pods;
  }

  public ArrivalMeter meter() {
    return meter;
  }

  /** The latest plan (empty before the first). */
  public Plan plan() {
    return plan;
  }

  public void start(ScheduledExecutorService scheduler) {
    long every = settings.interval().toMillis();
    scheduler.scheduleWithFixedDelay(this::runOnce, every, every, TimeUnit.MILLISECONDS);
  }

  /** One plan; never throws (a failure is logged and the last plan stays). */
  public void runOnce() {
    try {
      plan = makePlan();
    } catch (RuntimeException e) {
      LOG.error("capacity: planning failed; the last plan stays in force", e);
    }
  }

  Plan makePlan() {
    long now = ticker.nanos();
    double dt = lastNanos == Long.MIN_VALUE ? 0 : (now - lastNanos) / 1e9;
    lastNanos = now;
    Topology t = datastore.topology();
    ArrivalMeter.Rates rates = meter.rates(now);
    List<RouteView> routes = t.routes();
    Set<PoolKey> missing = latency.poolsMissing(routes, objectives.minRequestsForScaling());
    List<PoolDemand> demands = new ArrayList<>();
    Map<PoolKey, Double> shares = new HashMap<>();
    for (PoolView p : t.poolsByKey().values()) {
      demands.add(demand(p, t, routes, rates, missing.contains(p.key()), dt, shares));
    }
    List<Spill> spills = new ArrayList<>();
    for (Spill s : rates.spills()) { // went through this replica: scaled as the pool they went to
      spills.add(new Spill(s.route(), s.from(), s.to(), s.perSecond() * shares.getOrDefault(s.from(), 1.0),
          s.share()));
    }
    Plan next = planner.plan(demands, spills, now);
    Set<RouteKey> routeKeys = new HashSet<>();
    routes.forEach(r -> routeKeys.add(r.key()));
    meter.retain(t.poolsByKey().keySet(), routeKeys);
    throughputs.retain(t.poolsByKey().keySet());
    fleet.retain(t.poolsByKey().keySet());
    report(next, demands, now);
    return next;
  }

  private PoolDemand demand(PoolView p, Topology t, List<RouteView> routes, ArrivalMeter.Rates rates,
      boolean objectivesMissed, double dt, Map<PoolKey, Double> shares) {
    List<EndpointState> states = datastore.states(List.of(p));
    int ready = 0;
    int own = 0;
    int all = 0;
    for (EndpointState s : states) {
      ready += s.scrapeHealthy() ? 1 : 0;
      own += datastore.inFlight().load(s.address()).total();
      all += s.inFlight().total();
    }
    double share = fleet.factor(p.key(), own, all, dt);
    shares.put(p.key(), share);
    int waiting = flow.waiting(p.key());
    double satPods = states.isEmpty() ? 0
        : saturation.saturation(states) * states.size() + (double) waiting / saturation.queueLimit();
    PoolLimits limits = PoolLimits.of(p.key(), routes, latency.estimator());
    double prompt = rates.meanPromptTokens().getOrDefault(p.key(), Double.NaN);
    PoolCapacity declared = p.pool().capacity();
    double throughput = throughputs.of(p.key(), states, limits, Double.isNaN(prompt) ? 0 : prompt,
        declared.maxBatch(), dt);
    return new PoolDemand(p.key(), declared, states.size(), ready, share * rates.arrival().getOrDefault(p.key(), 0.0),
        throughput, satPods, waiting, objectivesMissed, loadTimeSeconds(p, t), limits.text());
  }

  /** Declared, else the mean of what the pool's pods took from creation to Ready, else the setting. */
  private double loadTimeSeconds(PoolView p, Topology t) {
    Duration declared = p.pool().capacity().loadTime();
    if (declared != null) {
      return declared.toMillis() / 1000.0;
    }
    double sum = 0;
    int n = 0;
    for (PodInfo pod : t.config().pods()) {
      if (pod.readyAfter() != null && p.pool().selects(pod)) {
        sum += pod.readyAfter().toMillis() / 1000.0;
        n++;
      }
    }
    return n > 0 ? sum / n : settings.loadTime().toMillis() / 1000.0;
  }

  private void report(Plan next, List<PoolDemand> demands, long now) {
    Map<PoolKey, PoolDemand> byKey = new HashMap<>();
    demands.forEach(d -> byKey.put(d.pool(), d));
    for (PoolPlan p : next.pools()) {
      Integer before = lastDesired.put(p.pool(), p.desired());
      if (before != null && before != p.desired()) {
        LOG.info("capacity: pool {} {} -> {} pods: {}", p.pool(), before, p.desired(), p.reason());
      }
      PoolDemand d = byKey.get(p.pool());
      warnOnce(p.pool(), "unpriced", !d.declared().priced(), "capacity: pool " + p.pool() + " declares no "
          + PoolCapacity.COST_PER_POD_HOUR + " annotation; its pods are priced at 1 per hour");
      warnOnce(p.pool(), "overdue", planner.overdue(d, now), "capacity: pool " + p.pool() + ": " + p.reason()
          + "; check that its pods can start (image, resources, readiness probe)");
      warnOnce(p.pool(), "oscillating", planner.oscillating(p.pool()), "capacity: pool " + p.pool()
          + ": it grows again soon after it shrank (the load flaps); its scale-down waits are stretched ("
          + p.reason() + ")");
    }
    lastDesired.keySet().retainAll(byKey.keySet());
    episodes.keySet().removeIf(k -> !byKey.containsKey(PoolKey.parse(k.substring(0, k.indexOf('#')))));
  }

  /** A WARN when a condition starts, nothing while it lasts, and again after it ended and came back. */
  private void warnOnce(PoolKey pool, String what, boolean now, String message) {
    String key = pool + "#" + what;
    Boolean was = episodes.put(key, now);
    if (now && !Boolean.TRUE.equals(was)) {
      LOG.warn(message);
    }
  }
}
