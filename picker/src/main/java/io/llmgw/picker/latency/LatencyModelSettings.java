package io.llmgw.picker.latency;

/**
 * How the per-pod latency model learns.
 *
 * @param minObservations decayed observations before a pod's own fit is trusted (until then it borrows the pooled fit)
 * @param decay forgetting per observation, so the fit follows a pod whose behaviour drifts
 * @param ridge keeps the fit solvable while a feature has not varied yet
 * @param headroom the share of a latency limit a pod may be predicted to use and still qualify: the model predicts a
 *     mean while objectives hold at a quantile
 */
public record LatencyModelSettings(double minObservations, double decay, double ridge, double headroom) {
  public LatencyModelSettings {
    if (!(minObservations >= 0) || !(decay > 0 && decay <= 1) || !(ridge > 0) || !(headroom > 0 && headroom <= 1)) {
      throw new IllegalArgumentException("latency model: minObservations >= 0, decay in (0, 1], ridge > 0 and "
          + "headroom in (0, 1] are required");
    }
  }

  public static LatencyModelSettings defaults() {
    return new LatencyModelSettings(20, 0.995, 1e-3, 0.8);
  }
}
