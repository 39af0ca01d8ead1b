package io.llmgw.picker.latency;

/** Predicted time to first token and time per output token in milliseconds; NaN where there is no data yet. */
public record LatencyPrediction(double ttftMs, double tpotMs) {
  /** Within both limits (a limit ≤ 0 is none); an unknown prediction is not held against the pod. */
  public boolean meets(double ttftLimitMs, double tpotLimitMs) {
    return !(ttftLimitMs > 0 && ttftMs > ttftLimitMs) && !(tpotLimitMs > 0 && tpotMs > tpotLimitMs);
  }
}
