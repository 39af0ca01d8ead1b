package io.llmgw.extproc.capacity.controller;

import io.llmgw.api.PoolKey;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * How much of a pool's traffic passes through this replica: with several EPP replicas each counts only the requests it
 * routes, so its arrivals are scaled by the pool's requests in flight from every replica (its own and what its peers
 * share) over its own, both smoothed over the arrival window. Alone, or with no request of its own in flight lately,
 * the factor is 1 (and a replica that routes nothing sees no arrivals to scale). The planning thread's own.
 */
final class FleetShare {
  private record Smoothed(double own, double all) {}

  private final double windowSeconds;
  private final Map<PoolKey, Smoothed> pools = new HashMap<>();

  FleetShare(double windowSeconds) {
    this.windowSeconds = windowSeconds;
  }

  /**
   * @param own requests this replica has in flight on the pool's pods now
   * @param all the same with every fresh peer's
   * @param dtSeconds since the last call
   * @return what this replica's arrivals are multiplied by
   */
  double factor(PoolKey pool, int own, int all, double dtSeconds) {
    double alpha = dtSeconds <= 0 ? 1 : 1 - Math.exp(-dtSeconds / windowSeconds);
    Smoothed before = pools.get(pool);
    Smoothed now = before == null ? new Smoothed(own, Math.max(own, all))
        : new Smoothed(before.own() + alpha * (own - before.own()),
            before.all() + alpha * (Math.max(own, all) - before.all()));
    pools.put(pool, now);
    return now.own() < 0.05 ? 1 : now.all() / now.own();
  }

  void retain(Set<PoolKey> live) {
    pools.keySet().retainAll(live);
  }
}
