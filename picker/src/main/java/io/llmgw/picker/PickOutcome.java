package io.llmgw.picker;

import io.llmgw.picker.latency.LoadSnapshot;

/** The picker's answer: a decision, or the reason there is none. */
public sealed interface PickOutcome {
  /**
   * @param loadAtPick the primary's load as this request met it, before the request counted there (what the latency
   *     model learns from when the response comes)
   * @param scored what the picker chose from, or null
   */
  record Picked(Decision decision, LoadSnapshot loadAtPick, Scored scored) implements PickOutcome {
    public Picked(Decision decision, LoadSnapshot loadAtPick) {
      this(decision, loadAtPick, null);
    }
  }

  /**
   * No endpoint can take the request.
   *
   * @param code {@code no_ready_endpoint} or {@code subset_mismatch}: the error code the request is answered with (503)
   * @param detail which filter left nothing, in words
   */
  record NoEndpoint(String code, String detail) implements PickOutcome {
    public static final String NO_READY_ENDPOINT = "no_ready_endpoint";
    public static final String SUBSET_MISMATCH = "subset_mismatch";
  }
}
