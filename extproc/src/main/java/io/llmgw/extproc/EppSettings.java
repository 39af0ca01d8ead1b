package io.llmgw.extproc;

import io.llmgw.adapters.AdapterSettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.picker.EndpointPicker;
import io.llmgw.picker.Policies;
import io.llmgw.picker.SaturationSettings;
import io.llmgw.picker.flow.FlowSettings;
import io.llmgw.scraper.ScrapeSettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every setting of one EPP, validated once at start.
 *
 * @param bindHost address the three servers listen on
 * @param grpcPort ext_proc (0 picks a free port)
 */
public record EppSettings(
    SourceSettings source,
    String bindHost,
    int grpcPort,
    int healthPort,
    int metricsPort,
    PolicyName policy,
    int adapterPendingThreshold,
    int maxBodyBytes,
    Duration staleAfter,
    boolean headerCarriesFallbacks,
    ScrapeSettings scrape,
    AdapterSettings adapters,
    FlowSettings flow,
    SaturationSettings saturation) {

  /** Our policies, and the baselines benchmarks compare them with (round-robin is what a plain Service does). */
  public enum PolicyName {
    SEED, SCORERS, ROUND_ROBIN, RANDOM, LEAST_REQUEST;

    /** Accepts the command-line spelling: {@code seed}, {@code scorers}, {@code round-robin}, … */
    public static PolicyName parse(String value) {
      return valueOf(value.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }

    public String cliName() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  public EppSettings {
    require(adapterPendingThreshold >= 1, "--adapter-pending-threshold must be at least 1");
    require(maxBodyBytes >= 1024, "--max-body-bytes must be at least 1024");
    require(!scrape.interval().isNegative() && !scrape.interval().isZero(), "--scrape-interval must be positive");
    require(staleAfter.compareTo(scrape.interval()) > 0, "metrics staleness must exceed the scrape interval");
    for (int port : new int[] {grpcPort, healthPort, metricsPort}) {
      require(port >= 0 && port <= 65535, "ports must be within 0..65535");
    }
  }

  /** File mode on the documented ports. */
  public static EppSettings defaults(Path configFile) {
    return defaults(new SourceSettings.File(configFile, Duration.ofSeconds(1)));
  }

  public static EppSettings defaults(SourceSettings source) {
    return new EppSettings(source, "0.0.0.0", 9002, 9003, 9090, PolicyName.SEED,
        Policies.DEFAULT_ADAPTER_PENDING_THRESHOLD, 8 << 20, EndpointPicker.DEFAULT_STALE_AFTER, false,
        ScrapeSettings.defaults(), AdapterSettings.defaults(), FlowSettings.defaults(), SaturationSettings.defaults());
  }

  /** Loopback on the default ports: a local run others can reach at the documented ports. */
  public EppSettings onLoopback() {
    return new EppSettings(source, "127.0.0.1", grpcPort, healthPort, metricsPort, policy, adapterPendingThreshold,
        maxBodyBytes, staleAfter, headerCarriesFallbacks, scrape, adapters, flow, saturation);
  }

  /** Loopback and free ports: what tests and local runs want. */
  public EppSettings onLoopbackEphemeralPorts() {
    return new EppSettings(source, "127.0.0.1", 0, 0, 0, policy, adapterPendingThreshold, maxBodyBytes, staleAfter,
        headerCarriesFallbacks, scrape, adapters, flow, saturation);
  }

  public EppSettings withPolicy(PolicyName p, int threshold) {
    return new EppSettings(source, bindHost, grpcPort, healthPort, metricsPort, p, threshold, maxBodyBytes,
        staleAfter, headerCarriesFallbacks, scrape, adapters, flow, saturation);
  }

  public EppSettings withMaxBodyBytes(int bytes) {
    return new EppSettings(source, bindHost, grpcPort, healthPort, metricsPort, policy, adapterPendingThreshold,
        bytes, staleAfter, headerCarriesFallbacks, scrape, adapters, flow, saturation);
  }

  public EppSettings withHeaderFallbacks(boolean on) {
    return new EppSettings(source, bindHost, grpcPort, healthPort, metricsPort, policy, adapterPendingThreshold,
        maxBodyBytes, staleAfter, on, scrape, adapters, flow, saturation);
  }

  public EppSettings withAdapters(AdapterSettings a) {
    return new EppSettings(source, bindHost, grpcPort, healthPort, metricsPort, policy, adapterPendingThreshold,
        maxBodyBytes, staleAfter, headerCarriesFallbacks, scrape, a, flow, saturation);
  }

  public EppSettings withFlow(FlowSettings f, SaturationSettings sat) {
    return new EppSettings(source, bindHost, grpcPort, healthPort, metricsPort, policy, adapterPendingThreshold,
        maxBodyBytes, staleAfter, headerCarriesFallbacks, scrape, adapters, f, sat);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
