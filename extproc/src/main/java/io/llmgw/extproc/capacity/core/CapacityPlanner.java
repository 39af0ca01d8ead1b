package io.llmgw.extproc.capacity.core;

import io.llmgw.api.PoolKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * INFaaS's model-autoscaler over pools: each pool gets the fewest pods that serve its demand at its measured throughput
 * per pod with the stated slack, where demand counts the model-less requests that went to a dearer variant only because
 * the cheaper one had no room (so the cheaper pool grows and they move back: the vertical choice, priced, and taken
 * only when a request costs less there per pod-hour than where it spilled to), and a rising
 * demand is planned for where it will be once a new pod is ready (its trend over the pool's load time). A missed
 * objective asks for one pod more than the arithmetic. Pods are added at once and taken away only after a lower count
 * has held for the pool's load time plus a hysteresis window, never while one of its objectives is missed (taking a pod
 * then could only make it worse); a pool that has to grow again soon after it shrank (flapping) has that wait doubled,
 * up to four times. Not thread-safe: one planning thread calls it.
 */
public final class CapacityPlanner {
  /** A pool that grows again within this many scale-down waits of shrinking flaps. */
  static final int TURN_MEMORY_WAITS = 4;
  static final int MAX_STRETCH = 4;
  /** A pod asked for is overdue after this many load times (and a minute), and the plan says so. */
  static final int OVERDUE_LOAD_TIMES = 3;

  private final double targetUtilisation;
  private final long hysteresisNanos;
  private final Map<PoolKey, Held> held = new HashMap<>();
  private final Map<PoolKey, Trend> trends = new HashMap<>();

  /**
   * @param targetUtilisation the share of the pods' throughput demand may use (INFaaS keeps 20 % slack)
   * @param hysteresisNanos how long a lower count must hold, beyond the pool's load time, before pods are let go
   */
  public CapacityPlanner(double targetUtilisation, long hysteresisNanos) {
    if (!(targetUtilisation > 0 && targetUtilisation <= 1) || hysteresisNanos < 0) {
      throw new IllegalArgumentException("a target utilisation in (0, 1] and a non-negative hysteresis are required");
    }
    this.targetUtilisation = targetUtilisation;
    this.hysteresisNanos = hysteresisNanos;
  }

  /**
   * What a pool's count is held at: a scale-down waits ({@code lowerSince} ≥ 0, the highest count wanted meanwhile in
   * {@code lowerMax}); {@code lastDown} is when it last shrank, {@code turns} the recent times it grew again soon after.
   */
  private record Held(int desired, long lowerSince, int lowerMax, long shortOfPodsSince, long lastDown,
      List<Long> turns) {}

  /** A pool's demand and how fast it rose lately (requests per second, per second; smoothed over the load time). */
  private record Trend(double demand, double slope, long at) {
    Trend next(double now, long nanos, double loadSeconds) {
      double dt = (nanos - at) / 1e9;
      if (dt <= 0) {
        return this;
      }
      double alpha = Math.min(1, dt / Math.max(1, loadSeconds));
      return new Trend(now, slope + alpha * ((now - demand) / dt - slope), nanos);
    }
  }

  /** The plan for these pools now; pools not among them are forgotten. */
  public Plan plan(List<PoolDemand> pools, List<Spill> spills, long nowNanos) {
    Map<PoolKey, PoolDemand> byKey = new HashMap<>();
    pools.forEach(d -> byKey.put(d.pool(), d));
    List<Spill> moving = new ArrayList<>(spills.size());
    Map<PoolKey, Double> shift = new HashMap<>();
    for (Spill s : spills) {
      if (cheaperThere(byKey.get(s.to()), byKey.get(s.from()))) {
        moving.add(s);
        shift.merge(s.to(), s.perSecond(), Double::sum);
        shift.merge(s.from(), -s.perSecond(), Double::sum);
      }
    }
    List<PoolPlan> out = new ArrayList<>(pools.size());
    double now = 0;
    double planned = 0;
    for (PoolDemand d : pools) {
      PoolPlan p = planOne(d, Math.max(0, d.arrivalPerSecond() + shift.getOrDefault(d.pool(), 0.0)), nowNanos);
      out.add(p);
      now += d.pods() * d.declared().price();
      planned += p.costPerHour();
    }
    held.keySet().retainAll(byKey.keySet());
    trends.keySet().retainAll(byKey.keySet());
    return new Plan(out, moves(moving, byKey), now, planned);
  }

  /**
   * INFaaS's greedy between horizontal and vertical: spilled requests are planned onto the variant the route prefers
   * (the cheaper by its declared token cost) only when a request costs no more there in pod-hours, at each pool's
   * measured throughput per pod; else growing the pool they spilled to is the cheaper way, and they stay its demand.
   * Either unmeasured: the route's preference.
   */
  private static boolean cheaperThere(PoolDemand to, PoolDemand from) {
    if (to == null || from == null || !to.throughputKnown() || !from.throughputKnown()) {
      return true;
    }
    return to.costPerRequest() <= from.costPerRequest();
  }

  private PoolPlan planOne(PoolDemand d, double demand, long nowNanos) {
    Trend before = trends.get(d.pool());
    Trend trend = before == null ? new Trend(demand, 0, nowNanos) : before.next(demand, nowNanos, d.loadTimeSeconds());
    trends.put(d.pool(), trend);
    // at most half as much again: a trend read off noise must not double a pool
    double rising = Math.min(0.5 * demand, Math.max(0, trend.slope()) * d.loadTimeSeconds());
    int need;
    String basis;
    if (d.throughputKnown()) {
      need = (int) Math.ceil((demand + rising) / (d.podThroughput() * targetUtilisation) - 1e-9);
      basis = String.format(Locale.ROOT, "%.1f req/s%s at %.1f req/s per pod within %s, %.0f %% use", demand,
          rising >= 0.05 ? String.format(Locale.ROOT, " (%.1f once a new pod is ready)", demand + rising) : "",
          d.podThroughput(), d.limit(), targetUtilisation * 100);
    } else {
      need = (int) Math.ceil(d.saturationPods() / targetUtilisation - 1e-9);
      basis = String.format(Locale.ROOT, "%.1f req/s, saturation %.1f pods (throughput per pod not measured yet)",
          demand, d.saturationPods());
    }
    if (demand > 0 || d.waiting() > 0) {
      need = Math.max(need, 1);
      if (d.pods() == 0) {
        basis += d.waiting() == 1 ? "; 1 request waits for a pool at zero"
            : d.waiting() > 1 ? "; " + d.waiting() + " requests wait for a pool at zero" : "";
      }
    }
    if (d.objectivesMissed()) {
      // measured: the throughput was optimistic, one pod over the arithmetic (a lagging verdict must not ratchet pods
      // up one load time after another); unmeasured: one more than the pool has, as the saturation gauge asks
      need = d.throughputKnown() ? need + 1 : Math.max(need, d.readyPods() + 1);
      basis += "; an objective is missed";
    }
    need = Math.clamp(need, d.declared().minReplicas(), d.declared().maxReplicas());
    Held h = step(d, need, nowNanos);
    held.put(d.pool(), h);
    String reason = reason(d, need, h, nowNanos) + basis;
    return new PoolPlan(d.pool(), d.pods(), d.readyPods(), demand, need, h.desired(),
        h.desired() * d.declared().price(),
        reason);
  }

  private Held step(PoolDemand d, int need, long now) {
    Held h = held.get(d.pool());
    if (h == null) {
      // a fresh planner (a restart) never lets go of pods before it has watched them for a window
      int start = Math.max(need, d.pods());
      return new Held(start, need < start ? now : -1, need, d.readyPods() < start ? now : -1, -1, List.of());
    }
    List<Long> turns = new ArrayList<>(h.turns());
    long memory = TURN_MEMORY_WAITS * baseHoldNanos(d);
    turns.removeIf(t -> now - t > memory);
    long shortSince = d.readyPods() < h.desired() ? (h.shortOfPodsSince() >= 0 ? h.shortOfPodsSince() : now) : -1;
    if (need >= h.desired()) {
      if (need > h.desired() && h.lastDown() >= 0 && now - h.lastDown() <= memory) {
        turns.add(now); // it shrank a moment ago and must grow again: the load flaps
      }
      shortSince = d.readyPods() < need ? (shortSince >= 0 ? shortSince : now) : -1;
      return new Held(need, -1, need, shortSince, h.lastDown(), List.copyOf(turns));
    }
    if (h.lowerSince() < 0 || d.objectivesMissed()) {
      return new Held(h.desired(), now, need, shortSince, h.lastDown(), List.copyOf(turns));
    }
    int lowerMax = Math.max(h.lowerMax(), need);
    if (now - h.lowerSince() >= holdNanos(d, turns)) {
      return new Held(lowerMax, -1, lowerMax, shortSince, now, List.copyOf(turns));
    }
    return new Held(h.desired(), h.lowerSince(), lowerMax, shortSince, h.lastDown(), List.copyOf(turns));
  }

  private long baseHoldNanos(PoolDemand d) {
    return (long) (d.loadTimeSeconds() * 1e9) + hysteresisNanos;
  }

  /** The pool's load time and the hysteresis, doubled for each time it flapped lately (at most four times). */
  long holdNanos(PoolDemand d, List<Long> turns) {
    return baseHoldNanos(d) * Math.min(MAX_STRETCH, 1L << Math.min(2, turns.size()));
  }

  /** Whether the pool grew again soon after it shrank, lately: its scale-down wait is stretched. */
  public boolean oscillating(PoolKey pool) {
    Held h = held.get(pool);
    return h != null && !h.turns().isEmpty();
  }

  /** Pods asked for that are overdue: not ready after {@link #OVERDUE_LOAD_TIMES} load times and a minute. */
  public boolean overdue(PoolDemand d, long nowNanos) {
    Held h = held.get(d.pool());
    return h != null && h.shortOfPodsSince() >= 0
        && nowNanos - h.shortOfPodsSince() > (long) ((OVERDUE_LOAD_TIMES * d.loadTimeSeconds() + 60) * 1e9);
  }

  private String reason(PoolDemand d, int need, Held h, long now) {
    StringBuilder r = new StringBuilder();
    int change = h.desired() - d.pods();
    r.append(
        change > 0 ? "+" + change + pods(change) : change < 0 ? change + pods(-change) : d.pods() + pods(d.pods()));
    if (h.lowerSince() >= 0) {
      long left = Math.max(0, holdNanos(d, h.turns()) - (now - h.lowerSince()));
      r.append(String.format(Locale.ROOT, " (%d wanted; held %d s more%s)", need, (left + 999_999_999) / 1_000_000_000,
          h.turns().isEmpty() ? "" : ", the load flaps"));
    }
    if (h.shortOfPodsSince() >= 0 && overdue(d, now)) {
      r.append(String.format(Locale.ROOT, " (%d of %d pods not ready after %d s; load time %.0f s)",
          h.desired() - d.readyPods(), h.desired(), (now - h.shortOfPodsSince()) / 1_000_000_000,
          d.loadTimeSeconds()));
    }
    return r.append(": ").toString();
  }

  private static String pods(int n) {
    return n == 1 ? " pod" : " pods";
  }

  private static List<Move> moves(List<Spill> spills, Map<PoolKey, PoolDemand> pools) {
    List<Move> out = new ArrayList<>();
    for (Spill s : spills) {
      PoolDemand from = pools.get(s.from());
      PoolDemand to = pools.get(s.to());
      if (from == null || to == null || !(s.perSecond() > 0)) {
        continue;
      }
      double saving = s.perSecond() * 3600 * (from.costPerRequest() - to.costPerRequest());
      out.add(new Move(s.route(), s.from(), s.to(), s.share(), saving));
    }
    return out;
  }
}
