package io.llmgw.api;

/**
 * One pool's load as the EPP reports it on {@code GET /admin/load} (written by the EPP, read by the batch service).
 *
 * @param pool the pool's key, {@code namespace/name}
 * @param pods pods with fresh metrics
 * @param running requests the pods reported running
 * @param waiting requests the pods reported waiting
 * @param sentSinceReport requests the EPP sent the pods after their reports were asked for
 * @param flowWaiting requests the EPP holds in flow control for the pool
 * @param headroom requests the pool can take now, spread over its pods, before the EPP's saturation detector calls it
 *     saturated and sheds sheddable requests (the batch objective's); {@link #UNKNOWN_HEADROOM} from an EPP that does
 *     not say
 * @param atZero the pool has no pod and may scale to zero ({@code llmgw.io/min-replicas: "0"}): a request for it waits
 *     in flow control while the capacity plan asks for a pod, so one request wakes it; false from an EPP that does not
 *     say
 */
public record PoolLoad(String pool, int pods, int running, int waiting, int sentSinceReport, int flowWaiting,
    int headroom, boolean atZero) {
  public static final int UNKNOWN_HEADROOM = Integer.MAX_VALUE;

  public PoolLoad(String pool, int pods, int running, int waiting, int sentSinceReport, int flowWaiting,
      int headroom) {
    this(pool, pods, running, waiting, sentSinceReport, flowWaiting, headroom, false);
  }

  public PoolLoad(String pool, int pods, int running, int waiting, int sentSinceReport, int flowWaiting) {
    this(pool, pods, running, waiting, sentSinceReport, flowWaiting, UNKNOWN_HEADROOM);
  }
}
