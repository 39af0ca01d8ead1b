package io.llmgw.picker.latency;

/**
 * The latency limits one request must be routed within, in milliseconds (0: none): time to first token and time per
 * output token.
 */
public record ObjectiveLimits(double ttftMs, double tpotMs) {
  public static final ObjectiveLimits NONE = new ObjectiveLimits(0, 0);

  public boolean any() {
    return ttftMs > 0 || tpotMs > 0;
  }

  /**
   * What is left after the request waited {@code waitedMs}: a time-to-first-token limit already spent is dropped (it
   * can no longer be met; holding the request longer would only make it later).
   */
  public ObjectiveLimits after(long waitedMs) {
    if (ttftMs <= 0) {
      return this;
    }
    double left = ttftMs - waitedMs;
    return new ObjectiveLimits(left > 0 ? left : 0, tpotMs);
  }
}
