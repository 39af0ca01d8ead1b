package io.llmgw.extproc.flow.core;

import io.llmgw.api.SettingException;
import java.time.Duration;

/**
 * How the EPP holds requests while their pool is saturated.
 *
 * @param fairness how a priority band shares dispatch among its flows
 * @param ordering the order of requests within one flow
 * @param ttl how long a request may wait before it is answered 503
 * @param maxRequests requests all bands together may hold; beyond it a newcomer evicts (see {@link FlowQueue}) or gets 429
 * @param maxBytes request-body bytes all bands together may hold
 * @param maxBandRequests requests one priority band may hold
 * @param maxBandBytes bytes one priority band may hold
 */
public record FlowSettings(boolean enabled, Fairness fairness, Ordering ordering, Duration ttl, int maxRequests,
    long maxBytes, int maxBandRequests, long maxBandBytes) {

  /**
   * Tokens serves the flow of a band that has been served the fewest tokens for its weight (virtual token counters);
   * round-robin gives each flow one dispatch in turn, whatever it costs; strict serves the band's oldest request first.
   */
  public enum Fairness {
    TOKENS, ROUND_ROBIN, STRICT
  }

  /** First come first served, or earliest deadline first. */
  public enum Ordering { FCFS, EDF }

  public FlowSettings {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new SettingException("flow.ttl", "must be positive");
    }
    require(maxRequests >= 1 && maxBandRequests >= 1, "flow-control request limits must be at least 1");
    require(maxBytes >= 1 && maxBandBytes >= 1, "flow-control byte limits must be at least 1");
  }

  /** GIE's defaults where it has them (TTL 30 s); limits generous enough that only a real flood reaches them. */
  public static FlowSettings defaults() {
    return new FlowSettings(true, Fairness.TOKENS, Ordering.FCFS, Duration.ofSeconds(30), 10_000, 1L << 30,
        5_000, 512L << 20);
  }

  public FlowSettings disabled() {
    return new FlowSettings(false, fairness, ordering, ttl, maxRequests, maxBytes, maxBandRequests, maxBandBytes);
  }

  public FlowSettings with(Fairness f, Ordering o) {
    return new FlowSettings(enabled, f, o, ttl, maxRequests, maxBytes, maxBandRequests, maxBandBytes);
  }

  public FlowSettings withLimits(Duration newTtl, int requests, long bytes, int bandRequests, long bandBytes) {
    return new FlowSettings(enabled, fairness, ordering, newTtl, requests, bytes, bandRequests, bandBytes);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
