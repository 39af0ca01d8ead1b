package io.llmgw.extproc;

import io.llmgw.adapters.AdapterSettings;
import io.llmgw.adapters.CopySettings;
import io.llmgw.api.SettingException;
import io.llmgw.extproc.capacity.controller.CapacitySettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.extproc.objectives.controller.ObjectiveSettings;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import io.llmgw.picker.SaturationSettings;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.scraper.ScrapeSettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every setting of one EPP, validated once at start; each group's defaults are in that group's {@code defaults()}.
 *
 * @param scheduling the scheduling plugins and their weights: a {@code --policy} shorthand's, or a plugin
 *     configuration file's
 * @param staleAfter endpoints whose metrics are older are not picked
 * @param rolloutDrainCheck how often a replaced adapter version is checked for idle copies to unload
 * @param tenancy who may call: API keys, a trusted tenant header, or nobody checked (off)
 * @param capacity how the capacity planner follows the load
 */
public record EppSettings(
    SourceSettings source,
    ListenSettings listen,
    SchedulingConfig scheduling,
    Duration staleAfter,
    RequestSettings requests,
    ScrapeSettings scrape,
    AdapterSettings adapters,
    CopySettings copies,
    FlowSettings flow,
    SaturationSettings saturation,
    ObjectiveSettings objectives,
    Duration rolloutDrainCheck,
    TenancySettings tenancy,
    CapacitySettings capacity) {

  public EppSettings withTenancy(TenancySettings t) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, adapters, copies, flow, saturation,
        objectives, rolloutDrainCheck, t, capacity);
  }

  public EppSettings withObjectives(ObjectiveSettings o) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, adapters, copies, flow, saturation,
        o, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withCapacity(CapacitySettings c) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, adapters, copies, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, c);
  }

  public static final PolicyShorthand DEFAULT_POLICY = PolicyShorthand.SEED;

  public EppSettings {
    if (scrape.interval().isNegative() || scrape.interval().isZero()) {
      throw new SettingException("scrape.interval", "must be positive");
    }
    require(staleAfter.compareTo(scrape.interval()) > 0, "metrics staleness must exceed the scrape interval");
    require(!rolloutDrainCheck.isNegative() && !rolloutDrainCheck.isZero(), "the drain check must be positive");
  }

  /** File mode on the documented ports. */
  public static EppSettings defaults(Path configFile) {
    return defaults(new SourceSettings.File(configFile, Duration.ofSeconds(1)));
  }

  public static EppSettings defaults(SourceSettings source) {
    return new EppSettings(source, ListenSettings.defaults(),
        DEFAULT_POLICY.config(LoraPackingScorer.DEFAULT_PENDING_THRESHOLD), Duration.ofSeconds(2),
        RequestSettings.defaults(), ScrapeSettings.defaults(), AdapterSettings.defaults(), CopySettings.defaults(),
        FlowSettings.defaults(), SaturationSettings.defaults(), ObjectiveSettings.defaults(), Duration.ofMillis(500),
        TenancySettings.OFF, CapacitySettings.defaults());
  }

  /** Loopback on the default ports: a local run others can reach at the documented ports. */
  public EppSettings onLoopback() {
    return withListen(listen.on("127.0.0.1", listen.grpcPort(), listen.healthPort(), listen.metricsPort()));
  }

  /** Loopback and free ports: what tests and local runs want. */
  public EppSettings onLoopbackEphemeralPorts() {
    return withListen(listen.on("127.0.0.1", 0, 0, 0));
  }

  public EppSettings withListen(ListenSettings l) {
    return new EppSettings(source, l, scheduling, staleAfter, requests, scrape, adapters, copies, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  /** A {@code --policy} shorthand; the threshold is the seed policy's. */
  public EppSettings withPolicy(PolicyShorthand policy, int pendingThreshold) {
    return withScheduling(policy.config(pendingThreshold));
  }

  public EppSettings withScheduling(SchedulingConfig config) {
    return new EppSettings(source, listen, config, staleAfter, requests, scrape, adapters, copies, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withRequests(RequestSettings r) {
    return new EppSettings(source, listen, scheduling, staleAfter, r, scrape, adapters, copies, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withMaxBodyBytes(int bytes) {
    return withRequests(new RequestSettings(bytes, requests.bytesPerToken(), requests.maxFallbacks(),
        requests.destinationFallbacks(), requests.trustRewriteHeader(), requests.maxRequestDuration(),
        requests.maxStreams(), Math.max(bytes, requests.maxBufferedBytes()), requests.idleTimeout(),
        requests.explainEvery(), requests.traces()));
  }

  public EppSettings withAdapters(AdapterSettings a) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, a, copies, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withCopies(CopySettings c) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, adapters, c, flow, saturation,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withFlow(FlowSettings f, SaturationSettings sat) {
    return new EppSettings(source, listen, scheduling, staleAfter, requests, scrape, adapters, copies, f, sat,
        objectives, rolloutDrainCheck, tenancy, capacity);
  }

  public EppSettings withScrape(ScrapeSettings s, Duration metricsStaleAfter) {
    return new EppSettings(source, listen, scheduling, metricsStaleAfter, requests, s, adapters, copies, flow,
        saturation, objectives, rolloutDrainCheck, tenancy, capacity);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
