package io.llmgw.picker;

import java.time.Instant;

/**
 * Requests the gateway routed to one endpoint whose response has not ended, in total and per model, and those still
 * waiting for their first token with the prompt tokens they bring.
 */
public interface InFlight {
  InFlight NONE = new InFlight() {
    @Override
    public int forModel(String model) {
      return 0;
    }

    @Override
    public int total() {
      return 0;
    }

    @Override
    public int sentSince(Instant reportedAt) {
      return 0;
    }
  };

  int forModel(String model);

  int total();

  /**
   * Of {@link #total}, those sent at or after {@code reportedAt}: the pod's report, taken then, may not show them yet.
   * The pod's own counts plus these are its load whatever other gateways or clients send it.
   */
  int sentSince(Instant reportedAt);

  /**
   * Uncached prompt tokens of requests sent here whose first token has not come back: the prefill work the gateway
   * knows the pod still has to do. Reserved when the request is routed, so a decision made a moment later sees it.
   */
  default long prefillTokens() {
    return 0;
  }

  /** Requests counted in {@link #prefillTokens}. */
  default int inPrefill() {
    return 0;
  }
}
