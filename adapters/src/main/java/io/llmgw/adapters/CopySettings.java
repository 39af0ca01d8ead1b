package io.llmgw.adapters;

import java.time.Duration;

/**
 * How many copies an adapter keeps (model-mesh's defaults, with its 10 s rate tracker as the tick).
 *
 * @param minCopies copies a recently used adapter keeps, for availability
 * @param recentWindow the window of the rate tracker: an adapter used at least {@code recentUses} times within it is
 *     recently used; one not used at all within it drops back to one copy
 * @param recentUses requests within the window that make an adapter worth a second copy (a long tail of adapters
 *     used once or twice would otherwise double the pool's residency and page everything out)
 * @param busyInFlight in-flight requests on one copy that, on two ticks running, earn the adapter another copy
 */
public record CopySettings(int minCopies, Duration recentWindow, int recentUses, int busyInFlight, Duration tick) {
  public static CopySettings defaults() {
    return new CopySettings(2, Duration.ofMinutes(5), 10, 50, Duration.ofSeconds(10));
  }
}
