package io.llmgw.extproc.observe;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;

/**
 * The status page's charts from its first second: the request and time-to-first-token totals, sampled every 2 s for
 * the last five minutes, so a page that opens draws what came before it instead of waiting for two of its
 * own reads. Sampled on the EPP's scheduler (two families out of the registry, nothing per request), read by {@code GET
 * /admin/history}.
 */
public final class TrafficHistory {
  /** Five minutes at the page's pace of one read every 2 s: what its charts span. */
  static final int SAMPLES = 150;
  public static final long EVERY_MILLIS = 2_000;
  private static final Set<String> FAMILIES = Set.of("llmgw_requests", "llmgw_time_to_first_token_seconds");

  /** Totals since the EPP started, at {@code t} (epoch millis): what the page computes its rates from. */
  public record Sample(long t, double requests, double ttftSum, double ttftCount) {}

  private final PrometheusRegistry registry;
  private final Clock clock;
  private final ArrayDeque<Sample> ring = new ArrayDeque<>(SAMPLES);

  public TrafficHistory(PrometheusRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
  }

  public void sample() {
    double requests = 0;
    double sum = 0;
    double count = 0;
    for (MetricSnapshot m : registry.scrape(FAMILIES::contains)) {
      if (m instanceof CounterSnapshot c) {
        for (var d : c.getDataPoints()) {
          requests += d.getValue();
        }
      } else if (m instanceof HistogramSnapshot h) {
        for (var d : h.getDataPoints()) {
          sum += d.getSum();
          count += d.getCount();
        }
      }
    }
    Sample s = new Sample(clock.millis(), requests, sum, count);
    synchronized (ring) {
      if (ring.size() == SAMPLES) {
        ring.removeFirst();
      }
      ring.addLast(s);
    }
  }

  /** Oldest first. */
  public List<Sample> samples() {
    synchronized (ring) {
      return List.copyOf(ring);
    }
  }
}
