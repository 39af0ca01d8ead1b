package io.llmgw.picker;

import java.time.Clock;
import java.time.Duration;

/** The saturation detector's thresholds (the reference EPP's defaults: queue 5, KV cache 0.8, metrics stale after 200 ms). */
public record SaturationSettings(int queueLimit, double kvLimit, Duration staleAfter) {
  public static SaturationSettings defaults() {
    return new SaturationSettings(5, 0.8, Duration.ofMillis(200));
  }

  public SaturationDetector detector(Clock clock) {
    return new SaturationDetector(clock, queueLimit, kvLimit, staleAfter);
  }
}
