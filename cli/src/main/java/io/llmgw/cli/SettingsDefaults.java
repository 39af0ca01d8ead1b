package io.llmgw.cli;

import io.llmgw.adapters.AdapterSettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.picker.SaturationSettings;
import io.llmgw.picker.scorers.LoraPackingScorer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * The serve flags' defaults, read from the settings records' own {@code defaults()}: a default lives in one place,
 * and {@code --help} shows it as the EPP will use it.
 */
public final class SettingsDefaults implements CommandLine.IDefaultValueProvider {
  private static final Map<String, String> DEFAULTS = defaults();

  private static Map<String, String> defaults() {
    EppSettings e = EppSettings.defaults(Path.of("unused"));
    AdapterSettings a = e.adapters();
    FlowSettings f = e.flow();
    SaturationSettings s = e.saturation();
    Map<String, String> m = new LinkedHashMap<>();
    m.put("--grpc-port", Integer.toString(e.listen().grpcPort()));
    m.put("--health-port", Integer.toString(e.listen().healthPort()));
    m.put("--metrics-port", Integer.toString(e.listen().metricsPort()));
    m.put("--policy", EppSettings.DEFAULT_POLICY.cliName());
    m.put("--adapter-pending-threshold", Integer.toString(LoraPackingScorer.DEFAULT_PENDING_THRESHOLD));
    m.put("--scrape-interval", go(e.scrape().interval()));
    m.put("--adapter-warm-window", go(e.scrape().adapterWarmWindow()));
    m.put("--stale-after", go(e.staleAfter()));
    m.put("--max-body-bytes", Integer.toString(e.requests().maxBodyBytes()));
    m.put("--max-request-duration", go(e.requests().maxRequestDuration()));
    m.put("--request-idle-timeout", go(e.requests().idleTimeout()));
    m.put("--max-streams", Integer.toString(e.requests().maxStreams()));
    m.put("--max-buffered-bytes", Long.toString(e.requests().maxBufferedBytes()));
    m.put("--load-wait-timeout", go(a.loadWaitTimeout()));
    m.put("--adapter-capacity", Integer.toString(a.capacityPerPod()));
    m.put("--mmesh-port", Integer.toString(a.mmeshPort()));
    m.put("--api-keys-reload-period", go(e.tenancy().keysReloadPeriod()));
    m.put("--flow-control", f.enabled() ? "on" : "off");
    m.put("--flow-fairness", f.fairness().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    m.put("--flow-ordering", f.ordering().name().toLowerCase(Locale.ROOT));
    m.put("--flow-ttl", go(f.ttl()));
    m.put("--flow-max-requests", Integer.toString(f.maxRequests()));
    m.put("--flow-max-bytes", Long.toString(f.maxBytes()));
    m.put("--flow-max-band-requests", Integer.toString(f.maxBandRequests()));
    m.put("--flow-max-band-bytes", Long.toString(f.maxBandBytes()));
    m.put("--saturation-queue-limit", Integer.toString(s.queueLimit()));
    m.put("--saturation-kv-limit", Double.toString(s.kvLimit()));
    m.put("--saturation-stale-after", go(s.staleAfter()));
    m.put("--capacity-arrival-window", go(e.capacity().arrivalWindow()));
    m.put("--capacity-hysteresis", go(e.capacity().hysteresis()));
    m.put("--capacity-load-time", go(e.capacity().loadTime()));
    return Map.copyOf(m);
  }

  /** Go-style, as the flags are written: 50ms, 2s, 15m. */
  static String go(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
  }

  @Override
  public String defaultValue(CommandLine.Model.ArgSpec arg) {
    return arg instanceof CommandLine.Model.OptionSpec o ? DEFAULTS.get(o.longestName()) : null;
  }
}
