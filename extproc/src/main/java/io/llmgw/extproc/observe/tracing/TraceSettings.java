package io.llmgw.extproc.observe.tracing;

import io.llmgw.api.SettingException;
import java.net.URI;

/**
 * Whether and where the EPP sends traces.
 *
 * @param otlpEndpoint an OTLP/HTTP collector's base address ({@code http://host:4318}; spans go to
 *     {@code /v1/traces}), or null for no traces at all
 * @param sampleRatio the share of requests traced that come without a sampled {@code traceparent}; one that comes with
 *     one follows its caller's choice
 * @param serviceName the {@code service.name} the spans carry
 */
public record TraceSettings(URI otlpEndpoint, double sampleRatio, String serviceName) {
  public TraceSettings {
    if (!(sampleRatio >= 0 && sampleRatio <= 1)) {
      throw new SettingException("traces.sampleRatio", "must be within 0..1, not " + sampleRatio);
    }
    if (otlpEndpoint != null
        && !("http".equals(otlpEndpoint.getScheme()) || "https".equals(otlpEndpoint.getScheme()))) {
      throw new SettingException("traces.otlpEndpoint", "must be an http:// or https:// address, not " + otlpEndpoint);
    }
    if (otlpEndpoint != null && otlpEndpoint.getHost() == null) {
      throw new SettingException("traces.otlpEndpoint", "has no host: " + otlpEndpoint);
    }
  }

  /** Off. */
  public static TraceSettings off() {
    return new TraceSettings(null, 0.1, "llmgw-epp");
  }

  public boolean enabled() {
    return otlpEndpoint != null;
  }

  public TraceSettings to(URI endpoint, double ratio) {
    return new TraceSettings(endpoint, ratio, serviceName);
  }
}
