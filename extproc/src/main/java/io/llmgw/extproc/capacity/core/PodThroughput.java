package io.llmgw.extproc.capacity.core;

/**
 * Requests per second one pod serves while a route's objectives hold, from its latency model: at {@code n} running
 * requests a request takes its time to first token plus its output at the time per output token, so the pod completes
 * {@code n / duration} a second (Little's law); the throughput is the best of that over the batch sizes at which the
 * predicted latencies stay under the limits, up to the largest batch the pods have run with others waiting (the engine's
 * limit: a model fitted below it says nothing above).
 */
public final class PodThroughput {
  private PodThroughput() {}

  /** The latency model's predictions for a request that finds {@code running} requests and no queue. */
  public interface Latency {
    double ttftMs(int running);

    double tpotMs(int running);
  }

  /**
   * @param ttftLimitMs NaN when no objective bounds it
   * @param tpotLimitMs NaN when no objective bounds it
   * @param batchLimit the largest batch seen with requests waiting; 0 when never seen
   * @return requests per second; NaN when it cannot be known (no model, no batch limit seen, or no batch size meets the
   *     limits, not even one request alone)
   */
  public static double of(Latency model, double ttftLimitMs, double tpotLimitMs, int batchLimit, double outputTokens) {
    if (batchLimit < 1 || !(outputTokens >= 1)) {
      return Double.NaN;
    }
    double best = Double.NaN;
    for (int n = 1; n <= batchLimit; n++) {
      double ttft = model.ttftMs(n);
      double tpot = model.tpotMs(n);
      if (Double.isNaN(ttft) || Double.isNaN(tpot)) {
        return Double.NaN;
      }
      if (ttft > ttftLimitMs || tpot > tpotLimitMs) { // false for a NaN limit: no objective bounds it
        break;
      }
      double durationMs = ttft + (outputTokens - 1) * tpot;
      if (durationMs > 0) {
        double perSecond = n * 1000.0 / durationMs;
        best = Double.isNaN(best) ? perSecond : Math.max(best, perSecond);
      }
    }
    return best;
  }
}
