package io.llmgw.extproc.capacity.core;

import io.llmgw.api.PoolCapacity;
import io.llmgw.api.PoolKey;

/**
 * One pool as the capacity planner sees it at one moment.
 *
 * @param pods endpoints the pool selects now, ready or not
 * @param readyPods of those, the ones whose scrapes succeed
 * @param arrivalPerSecond requests per second picked onto the pool's pods lately
 * @param podThroughput requests per second one pod serves while its routes' objectives hold ({@link PodThroughput}); NaN
 *     while the pool has not shown it (no latency model yet, or no pod has ever had a full batch)
 * @param saturationPods demand in pods at saturation 1.0, as the saturation gauge counts it: the planner's fallback
 *     while {@code podThroughput} is unknown
 * @param waiting requests held in flow control for the pool
 * @param objectivesMissed a route on the pool is below its objective's attainment
 * @param loadTimeSeconds how long a new pod takes to become ready (declared, else measured, else the default)
 * @param limit the tightest objective the throughput was measured at, for the reason text ("TTFT 1s")
 */
public record PoolDemand(PoolKey pool, PoolCapacity declared, int pods, int readyPods, double arrivalPerSecond,
    double podThroughput, double saturationPods, int waiting, boolean objectivesMissed, double loadTimeSeconds,
    String limit) {
  public boolean throughputKnown() {
    return podThroughput > 0 && Double.isFinite(podThroughput);
  }

  /** What one request costs on this pool at full use of a pod: the price over the requests it serves an hour. */
  public double costPerRequest() {
    return throughputKnown() ? declared.price() / (3600 * podThroughput) : Double.NaN;
  }
}
