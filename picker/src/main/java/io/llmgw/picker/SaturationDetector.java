package io.llmgw.picker;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Pool saturation as the mean over endpoints of max(queue / queueLimit, kv / kvLimit); an endpoint whose metrics are
 * stale or failing counts as fully saturated. The pool is saturated at 1.0 or more, or when it has no endpoint.
 */
public record SaturationDetector(Clock clock, int queueLimit, double kvLimit, Duration staleAfter) {
  public static SaturationDetector defaults(Clock clock) {
    return new SaturationDetector(clock, 5, 0.8, Duration.ofMillis(200));
  }

  public double saturation(List<EndpointState> pool) {
    if (pool.isEmpty()) {
      return 1.0;
    }
    long now = clock.millis();
    double sum = 0;
    for (EndpointState e : pool) {
      PodMetrics m = e.metrics();
      boolean stale = !e.scrapeHealthy() || now - m.updatedAt().toEpochMilli() > staleAfter.toMillis();
      sum += stale ? 1.0 : Math.max((double) m.waitingQueue() / queueLimit, m.kvCacheUsage() / kvLimit);
    }
    return sum / pool.size();
  }

  public boolean saturated(List<EndpointState> pool) {
    return saturation(pool) >= 1.0;
  }
}
