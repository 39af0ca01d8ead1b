package io.llmgw.batch.dispatch;

import io.llmgw.batch.store.QueueStats;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The batch service's metrics, served on its own port at {@code /metrics}. */
public final class BatchMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  final Gauge queueDepth = Gauge.builder().name("llmgw_batch_queue_depth")
      .help("Batch lines queued or in flight, by pool").labelNames("pool").register(registry);
  final Gauge oldestAge = Gauge.builder().name("llmgw_batch_oldest_queued_age_seconds")
      .help("Age of the oldest batch line still queued or in flight, by pool").labelNames("pool").register(registry);
  final Gauge budget = Gauge.builder().name("llmgw_batch_budget")
      .help("The dispatch budget D = 1 - (F_sys + F_epp + B), 0 when closed, by pool").labelNames("pool")
      .register(registry);
  final Gauge budgetPart = Gauge.builder().name("llmgw_batch_budget_part")
      .help("The budget's parts by pool: f_sys, f_epp, baseline, and max_sys").labelNames("pool", "part")
      .register(registry);
  final Gauge inFlight = Gauge.builder().name("llmgw_batch_in_flight")
      .help("Batch requests this dispatcher has sent and not yet seen answered, by pool").labelNames("pool")
      .register(registry);
  private final Gauge gatewayReachable = Gauge.builder().name("llmgw_batch_gateway_reachable")
      .help("1 while the gateway's front door answers; 0 while it cannot be reached and every pool waits")
      .register(registry);
  private final Counter dispatched = Counter.builder().name("llmgw_batch_dispatched_total")
      .help("Batch requests sent to the gateway, by pool").labelNames("pool").register(registry);
  private final Counter completed = Counter.builder().name("llmgw_batch_completed_total")
      .help("Batch lines answered successfully (output file), by pool").labelNames("pool").register(registry);
  private final Counter failed = Counter.builder().name("llmgw_batch_failed_total")
      .help("Batch lines that ended in the error file, by pool and reason").labelNames("pool", "reason")
      .register(registry);
  private final Counter retried = Counter.builder().name("llmgw_batch_retried_total")
      .help("Batch lines queued again, by pool and reason (429, 502, 503, 504, unreachable, 408, 500)")
      .labelNames("pool", "reason")
      .register(registry);
  private final Counter unreadable = Counter.builder().name("llmgw_batch_load_unreadable_total")
      .help("Readings of the EPP's load that failed; every budget is 0 until one succeeds").register(registry);

  public BatchMetrics() {
    gatewayReachable.set(1); // until a line finds it away
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  public void budget(String pool, Budget b, int inFlightNow) {
    budget.labelValues(pool).set(b.open() ? b.d() : 0);
    budgetPart.labelValues(pool, "f_sys").set(b.fSys());
    budgetPart.labelValues(pool, "f_epp").set(b.fEpp());
    budgetPart.labelValues(pool, "baseline").set(b.baseline());
    budgetPart.labelValues(pool, "max_sys").set(b.maxSys());
    inFlight.labelValues(pool).set(inFlightNow);
  }

  public void queue(String pool, QueueStats s, long nowMillis) {
    queueDepth.labelValues(pool).set(s.depth());
    oldestAge.labelValues(pool).set(s.depth() == 0 ? 0 : Math.max(0, nowMillis - s.oldestEnqueuedMillis()) / 1000.0);
  }

  public void dispatched(String pool) {
    dispatched.labelValues(pool).inc();
  }

  public void completed(String pool) {
    completed.labelValues(pool).inc();
  }

  public void failed(String pool, String reason) {
    failed.labelValues(pool, reason).inc();
  }

  public void retried(String pool, String reason) {
    retried.labelValues(pool, reason).inc();
  }

  public void gatewayReachable(boolean reachable) {
    gatewayReachable.set(reachable ? 1 : 0);
  }

  public double gatewayReachable() {
    return gatewayReachable.get();
  }

  public void unreadable() {
    unreadable.inc();
  }

  public double dispatchedTotal(String pool) {
    return dispatched.labelValues(pool).get();
  }

  public double completedTotal(String pool) {
    return completed.labelValues(pool).get();
  }

  public double retriedTotal(String pool, String reason) {
    return retried.labelValues(pool, reason).get();
  }

  public double unreadableTotal() {
    return unreadable.get();
  }
}
