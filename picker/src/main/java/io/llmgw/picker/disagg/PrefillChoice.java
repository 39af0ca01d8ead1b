package io.llmgw.picker.disagg;

import io.llmgw.picker.EndpointState;

/**
 * Whether one request's prompt is computed on a prefill pod, and why.
 *
 * @param prefill the prefill pod, or null: the decode pod serves the request whole
 * @param uncachedTokens the prompt tokens the prefill pod computes (its prefix cache holds the rest); 0 when whole
 */
public record PrefillChoice(EndpointState prefill, Outcome outcome, long uncachedTokens) {
  /** Why; the names are the values of the decision metric's label. */
  public enum Outcome {
    /** Prefill on the prefill pod, decode where the request is routed. */
    SPLIT("split"),
    /** The uncached prompt at the decode pod is under the handler's threshold: a transfer would cost more. */
    SHORT("short"),
    /** The prefill pods' queued prompts would take longer than the decode pod prefilling it, stalls included. */
    PREFILL_BUSY("prefill_busy"),
    /** No prefill pod can take it (none ready, none holds the adapter). */
    NO_PREFILL_POD("no_prefill_pod");

    private final String label;

    Outcome(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** No prefill pod: served whole, and why. */
  public static PrefillChoice whole(Outcome why) {
    return new PrefillChoice(null, why, 0);
  }

  public boolean split() {
    return prefill != null;
  }
}
