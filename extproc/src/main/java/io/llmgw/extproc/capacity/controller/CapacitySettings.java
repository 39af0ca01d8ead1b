package io.llmgw.extproc.capacity.controller;

import java.time.Duration;

/**
 * How the capacity planner follows the load.
 *
 * @param interval how often the plan is made
 * @param arrivalWindow arrival rates are smoothed over this time: a ramp is followed within it, a shorter burst is not
 *     planned for (flow control holds it)
 * @param hysteresis a lower pod count must hold this long beyond the pool's load time before pods are let go
 * @param loadTime a pool's load time when it neither declares one nor has shown one (its pods' creation to Ready)
 * @param applyPlan in cluster mode, the EPP sets each pool's scale target to the plan itself (off: an HPA or KEDA
 *     follows the exported count)
 */
public record CapacitySettings(Duration interval, Duration arrivalWindow, Duration hysteresis, Duration loadTime,
    boolean applyPlan) {
  public CapacitySettings {
    if (!positive(interval) || !positive(arrivalWindow) || hysteresis.isNegative() || !positive(loadTime)) {
      throw new IllegalArgumentException("capacity: a positive interval, arrival window and load time and a "
          + "non-negative hysteresis are required");
    }
  }

  public static CapacitySettings defaults() {
    return new CapacitySettings(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(2),
        Duration.ofMinutes(1), false);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }
}
