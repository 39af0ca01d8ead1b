package io.llmgw.api;

import java.time.Duration;

/**
 * What the capacity planner may do with a pool, from the InferencePool's annotations (upstream's schema has no field for
 * any of it): what one pod costs, how long a new pod takes to become ready, and the bounds on its replicas.
 *
 * @param costPerPodHour the price of one pod for an hour (any currency, the same for every pool); NaN when the pool
 *     does not say, and the planner then prices its pods at 1
 * @param loadTime how long a new pod takes to become ready; null when the pool does not say, and the planner then
 *     measures it (a pod's first healthy scrape after it appeared)
 * @param minReplicas 0 lets the pool scale to zero (a request then waits in flow control while a pod starts)
 * @param scaleTarget the workload whose scale subresource the EPP sets to the plan's count when it applies the plan
 *     itself ({@code Deployment/NAME} or {@code StatefulSet/NAME}, in the pool's namespace); null when none
 * @param maxBatch the most requests a pod runs at once (vLLM's {@code --max-num-seqs}, which it does not publish); 0
 *     when the pool does not say, and the planner then learns it from batches run while requests waited
 */
public record PoolCapacity(double costPerPodHour, Duration loadTime, int minReplicas, int maxReplicas,
    String scaleTarget, int maxBatch) {
  public static final String COST_PER_POD_HOUR = "llmgw.io/cost-per-pod-hour";
  public static final String LOAD_TIME = "llmgw.io/pod-load-time";
  public static final String MIN_REPLICAS = "llmgw.io/min-replicas";
  public static final String MAX_REPLICAS = "llmgw.io/max-replicas";
  public static final String SCALE_TARGET = "llmgw.io/scale-target";
  public static final String MAX_BATCH = "llmgw.io/max-batch";
  public static final int MAX_BATCH_LIMIT = 65_536;
  public static final int REPLICAS_LIMIT = 10_000;
  public static final double COST_LIMIT = 1_000_000;
  public static final Duration LOAD_TIME_LIMIT = Duration.ofHours(2);

  /** A pool that says nothing: unpriced, load time measured, one pod at least. */
  public static final PoolCapacity UNDECLARED = new PoolCapacity(Double.NaN, null, 1, REPLICAS_LIMIT, null, 0);

  public PoolCapacity(double costPerPodHour, Duration loadTime, int minReplicas, int maxReplicas) {
    this(costPerPodHour, loadTime, minReplicas, maxReplicas, null, 0);
  }

  public boolean priced() {
    return !Double.isNaN(costPerPodHour);
  }

  /** The price the planner uses: the declared one, else 1 per pod-hour. */
  public double price() {
    return priced() ? costPerPodHour : 1;
  }
}
