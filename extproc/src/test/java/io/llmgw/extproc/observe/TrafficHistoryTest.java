package io.llmgw.extproc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.testing.ManualClock;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Issue 53: the status page's charts have data from their first second, from totals the EPP samples itself. */
class TrafficHistoryTest {
  @Test
  void samplesTheRequestAndFirstTokenTotalsEveryModelTogetherAndKeepsFiveMinutes() {
    PrometheusRegistry registry = new PrometheusRegistry();
    Counter requests = Counter.builder().name("llmgw_requests_total").labelNames("model", "code").register(registry);
    Histogram ttft = Histogram.builder().name("llmgw_time_to_first_token_seconds").register(registry);
    Counter other = Counter.builder().name("llmgw_tokens_total").register(registry);
    ManualClock clock = new ManualClock(Instant.parse("2026-11-29T00:00:00Z"));
    TrafficHistory history = new TrafficHistory(registry, clock);
    history.sample();
    requests.labelValues("a", "200").inc(3);
    requests.labelValues("b", "429").inc();
    ttft.observe(0.5);
    ttft.observe(0.25);
    other.inc(1000);
    clock.advance(Duration.ofSeconds(2));
    history.sample();
    assertThat(history.samples()).hasSize(2);
    TrafficHistory.Sample last = history.samples().getLast();
    assertThat(last.requests()).isEqualTo(4);
    assertThat(last.ttftSum()).isEqualTo(0.75);
    assertThat(last.ttftCount()).isEqualTo(2);
    assertThat(last.t() - history.samples().getFirst().t()).isEqualTo(2_000);
    for (int i = 0; i < TrafficHistory.SAMPLES + 10; i++) {
      history.sample();
    }
    assertThat(history.samples()).hasSize(TrafficHistory.SAMPLES);
  }
}
