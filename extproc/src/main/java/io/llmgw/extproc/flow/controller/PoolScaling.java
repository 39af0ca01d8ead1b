package io.llmgw.extproc.flow.controller;

import io.llmgw.api.PoolKey;

/**
 * The scaling signal for one pool, in a form an HPA (External metric, AverageValue 1) or KEDA can follow directly.
 *
 * <p>Demand is measured in pods at saturation 1.0: the pool's saturation (mean over its pods, counting what the EPP sent
 * since the last scrape) times its pods, plus the requests waiting in flow control at the saturation detector's queue
 * limit per pod. Desired pods run that demand at {@link #TARGET_UTILISATION}, the slack INFaaS keeps so that bursts do not
 * queue while new pods start; a pool whose routes miss their latency objectives asks for at least one more pod than it
 * has, whatever the arithmetic says; never fewer than one.
 *
 * @param pods endpoints the pool selects now
 * @param waiting requests held in flow control for the pool
 * @param objectivesMissed a route on the pool is below its objective's attainment
 */
public record PoolScaling(PoolKey pool, int pods, double saturation, int waiting, boolean objectivesMissed,
    int desired) {
  /** @param targetUtilisation the share of capacity demand may use (INFaaS keeps 20 % slack) */
  public static PoolScaling of(PoolKey pool, int pods, double saturation, int waiting, int queueLimitPerPod,
      boolean objectivesMissed, double targetUtilisation) {
    double demand = saturation * pods + (double) waiting / queueLimitPerPod;
    int desired = (int) Math.ceil(demand / targetUtilisation - 1e-9);
    if (objectivesMissed) {
      desired = Math.max(desired, pods + 1);
    }
    return new PoolScaling(pool, pods, saturation, waiting, objectivesMissed, Math.max(1, desired));
  }

  /** The same pool with the capacity plan's count. */
  public PoolScaling withDesired(int planned) {
    return new PoolScaling(pool, pods, saturation, waiting, objectivesMissed, planned);
  }
}
