package io.llmgw.api;

import java.time.Duration;

/** A latency objective such as {@code OutputTokenLatency 2s at p99}. */
public record Objective(String type, Duration latency, int quantileNumerator) {
  public static final String TTFT = "TimeToFirstToken";
  public static final String TPOT = "OutputTokenLatency";

  public double quantile() {
    return quantileNumerator / 100.0;
  }
}
