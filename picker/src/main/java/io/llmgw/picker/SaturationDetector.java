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

  /**
   * How many more requests the pool can take, spread over its endpoints, before {@link #saturated} says it is: each
   * one sent adds one to an endpoint's queue until its next report ({@link EndpointState#queued}), so it raises the
   * saturation by {@code 1 / (queueLimit × endpoints)}. Zero for a saturated pool or one without endpoints. What a
   * sender of sheddable requests (the batch dispatcher) may send before this EPP starts refusing them.
   */
  public int headroom(List<EndpointState> pool) {
    if (pool.isEmpty()) {
      return 0;
    }
    double free = 1.0 - saturation(pool);
    if (free <= 0) {
      return 0;
    }
    return (int) Math.max(0, Math.ceil(free * queueLimit * pool.size() - 1e-9) - 1);
  }
}
