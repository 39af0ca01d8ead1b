package io.llmgw.extproc.flow.metrics;

import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.flow.controller.FlowEvents;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.observe.GatewayStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Flow control on the EPP's registry: what leaves the queue and how, and what waits (also per pool, for an autoscaler).
 */
public final class FlowMetrics implements FlowEvents {
  private final Counter outcomes;
  private final Histogram wait;

  public FlowMetrics(PrometheusRegistry registry) {
    outcomes = Counter.builder().name("llmgw_flow_requests_total")
        .help("Requests that left flow control, by pool, priority and outcome (dispatched, full, evicted, expired, "
            + "cancelled)")
        .labelNames("pool", "priority", "outcome").register(registry);
    wait = Histogram.builder().name("llmgw_flow_wait_seconds")
        .help("Time requests waited in flow control before they were dispatched").labelNames("pool")
        .classicUpperBounds(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30).register(registry);
  }

  @Override
  public void left(String pool, int priority, String outcome, double waitedSeconds) {
    outcomes.labelValues(pool, Integer.toString(priority), outcome).inc();
    if (outcome.equals("dispatched")) {
      wait.labelValues(pool).observe(waitedSeconds);
    }
  }

  /** Gauges read at scrape time from flow control and the status report. */
  public static void watch(PrometheusRegistry registry, FlowControl flow, GatewayStatus status) {
    GaugeWithCallback.builder().name("llmgw_flow_queue_requests")
        .help("Requests waiting in flow control, by pool and priority").labelNames("pool", "priority")
        .callback(cb -> flow.waitingByPool().forEach(
            (pools, bands) -> bands.forEach((priority, n) -> cb.call(n, pools.toString(), Integer.toString(priority)))))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_flow_queue_bytes")
        .help("Request-body bytes waiting in flow control, by pool").labelNames("pool")
        .callback(cb -> flow.bytesByPool().forEach((pools, n) -> cb.call(n, pools.toString()))).register(registry);
    // labelled so prometheus-adapter and KEDA can select a pool by name, beside llmgw_pool_desired_replicas
    GaugeWithCallback.builder().name("llmgw_pool_flow_queue_size")
        .help("Requests waiting in flow control for the pool, all priorities").labelNames("namespace", "inference_pool")
        .callback(cb -> {
          for (PoolScaling p : status.recent().pools()) {
            cb.call(p.waiting(), p.pool().namespace(), p.pool().name());
          }
        }).register(registry);
  }
}
