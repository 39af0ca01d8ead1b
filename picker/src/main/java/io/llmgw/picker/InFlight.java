package io.llmgw.picker;

import java.time.Instant;

/** Requests the gateway routed to one endpoint whose response has not ended, in total and per model. */
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
}
