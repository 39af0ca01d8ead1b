package io.llmgw.picker;

import io.llmgw.picker.latency.LoadSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Pool saturation as the mean over endpoints of max(queue / queueLimit, kv / kvLimit); an endpoint whose metrics are
 * stale or failing counts as fully saturated. The pool is saturated at 1.0 or more, or when it has no endpoint. The
 * queue counts what the EPP sent since the last scrape ({@link LoadSnapshot}), so requests dispatched between two scrapes
 * fill the pool as they would on the pod, not all at once.
 */
public record SaturationDetector(Clock clock, int queueLimit, double kvLimit, Duration staleAfter) {
  public SaturationDetector {
    if (queueLimit < 1 || !(kvLimit > 0 && kvLimit <= 1) || staleAfter.isNegative() || staleAfter.isZero()) {
      throw new IllegalArgumentException(
          "saturation needs a queue limit ≥ 1, a KV limit in (0, 1] and a positive staleness");
    }
  }

  public static SaturationDetector defaults(Clock clock) {
    return SaturationSettings.defaults().detector(clock);
  }

  public double saturation(List<EndpointState> pool) {
    if (pool.isEmpty()) {
      return 1.0;
    }
    long now = clock.millis();
    double sum = 0;
    for (EndpointState e : pool) {
      boolean stale = !e.scrapeHealthy() || now - e.metrics().updatedAt().toEpochMilli() > staleAfter.toMillis();
      if (stale) {
        sum += 1.0;
      } else {
        LoadSnapshot load = LoadSnapshot.of(e);
        sum += Math.max(load.waiting() / queueLimit, load.kvCacheUsage() / kvLimit);
      }
    }
    return sum / pool.size();
  }

  public boolean saturated(List<EndpointState> pool) {
    return saturation(pool) >= 1.0;
  }
}
