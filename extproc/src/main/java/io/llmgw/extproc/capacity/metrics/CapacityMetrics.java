package io.llmgw.extproc.capacity.metrics;

import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.observe.GatewayStatus;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The capacity plan on the EPP's registry, read at scrape time from the status report (at most a second old): what
 * an HPA or KEDA follows per pool, and what the plan costs against what the pool's pods cost now.
 */
public final class CapacityMetrics {
  private CapacityMetrics() {}

  public static void watch(PrometheusRegistry registry, GatewayStatus status) {
    GaugeWithCallback.builder().name("llmgw_pool_desired_replicas")
        .help("Pods the capacity plan asks for: the pool's demand at its measured throughput per pod with 20 % "
            + "slack, pods let go only after the load time and hysteresis (an HPA External metric with target "
            + "averageValue 1 follows it)")
        .labelNames("namespace", "inference_pool")
        .callback(cb -> {
          for (PoolScaling p : status.recent().pools()) {
            cb.call(p.desired(), p.pool().namespace(), p.pool().name());
          }
        }).register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_demand_requests_per_second")
        .help("Requests per second the capacity plan counts for the pool: its arrivals, plus model-less requests "
            + "that wanted it but found no room, less those that would leave it")
        .labelNames("namespace", "inference_pool")
        .callback(cb -> {
          for (PoolPlan p : status.recent().capacity().pools()) {
            cb.call(p.demandPerSecond(), p.pool().namespace(), p.pool().name());
          }
        }).register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_planned_cost_per_hour")
        .help("The plan's pods times the pool's llmgw.io/cost-per-pod-hour (1 when it declares none)")
        .labelNames("namespace", "inference_pool")
        .callback(cb -> {
          for (PoolPlan p : status.recent().capacity().pools()) {
            cb.call(p.costPerHour(), p.pool().namespace(), p.pool().name());
          }
        }).register(registry);
  }
}
