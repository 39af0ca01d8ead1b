package io.llmgw.extproc.observe;

import io.llmgw.api.tls.ReloadingIdentity;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The served certificate as an operator alerts on it: reloads that failed (the previous certificate still serving,
 * one log line per distinct problem) and when the one served expires.
 */
public final class TlsMetrics {
  private TlsMetrics() {}

  public static void register(PrometheusRegistry registry, ReloadingIdentity identity) {
    CounterWithCallback.builder().name("llmgw_tls_reload_failures_total")
        .help("Certificate reloads that found a problem and kept the previous certificate serving")
        .callback(cb -> cb.call(identity.failedReloads())).register(registry);
    GaugeWithCallback.builder().name("llmgw_tls_certificate_expiry_timestamp_seconds")
        .help("When the certificate new handshakes are given expires (Unix time)")
        .callback(cb -> cb.call(identity.certificate().getNotAfter().getTime() / 1000.0)).register(registry);
  }
}
