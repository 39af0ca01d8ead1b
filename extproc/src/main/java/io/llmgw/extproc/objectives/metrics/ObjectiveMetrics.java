package io.llmgw.extproc.objectives.metrics;

import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.observe.GatewayStatus;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** Each route objective's attainment, target and observed latency, read at scrape time from the status report. */
public final class ObjectiveMetrics {
  private ObjectiveMetrics() {}

  public static void watch(PrometheusRegistry registry, GatewayStatus status) {
    GaugeWithCallback.builder().name("llmgw_objective_attainment_ratio")
        .help(
            "Share of a route's recent requests (its last 1,000 of the last 5 minutes) within its objective's latency; "
                + "absent without recent requests")
        .labelNames("route", "objective")
        .callback(cb -> {
          for (ObjectiveStatus o : status.recent().routes().stream().flatMap(r -> r.objectives().stream()).toList()) {
            if (!Double.isNaN(o.attainment())) {
              cb.call(o.attainment(), o.route().toString(), o.type());
            }
          }
        }).register(registry);
    GaugeWithCallback.builder().name("llmgw_objective_target_ratio")
        .help("The share an objective asks for (its quantile: 0.99 for p99)").labelNames("route", "objective")
        .callback(cb -> status.recent().routes().forEach(r -> r.objectives()
            .forEach(o -> cb.call(o.quantile(), o.route().toString(), o.type()))))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_objective_observed_seconds")
        .help("A route's latency at its objective's quantile over its recent requests (its last 1,000 of the last "
            + "5 minutes)")
        .labelNames("route", "objective")
        .callback(cb -> status.recent().routes().forEach(r -> r.objectives().forEach(o -> {
          if (!Double.isNaN(o.observedMs())) {
            cb.call(o.observedMs() / 1000.0, o.route().toString(), o.type());
          }
        }))).register(registry);
  }
}
