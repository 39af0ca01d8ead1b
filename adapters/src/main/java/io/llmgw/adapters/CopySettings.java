package io.llmgw.adapters;

import java.time.Duration;

/**
 * How many copies an adapter keeps (model-mesh's defaults, with its 10 s rate tracker as the tick).
 *
 * @param minCopies copies a recently used adapter keeps, for availability
 * @param recentWindow used within this long counts as recently used; beyond it extra copies are dropped
 * @param busyInFlight in-flight requests on one copy that, on two ticks running, earn the adapter another copy
 */
public record CopySettings(int minCopies, Duration recentWindow, int busyInFlight, Duration tick) {
  public static CopySettings defaults() {
    return new CopySettings(2, Duration.ofMinutes(5), 50, Duration.ofSeconds(10));
  }
}
