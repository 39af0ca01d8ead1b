package io.llmgw.extproc.cacheprediction.core;

/**
 * Why a pod's cache predictions keep missing, where the gateway can know it: the answer a platform team needs first
 * when precise routing quietly degrades.
 */
public enum MissCause {
  /** The pod's KV events were lost or garbled: its blocks are relearnt, and the approximate index stands in. */
  EVENTS_LOST("events_lost", "its KV-cache events were lost, so its blocks are being relearnt and the approximate "
      + "index stands in"),
  /** More was predicted than the engine held: blocks evicted since the pick, or the index believes stale blocks. */
  OVER_PREDICTED("over_predicted", "the engine held less than predicted: blocks evicted since the pick, or an index "
      + "that believes blocks the pod no longer has"),
  /** The engine held more than predicted: another replica's picks not yet seen here, or an index still cold. */
  UNDER_PREDICTED("under_predicted", "the engine held more than predicted: prompts routed there that this replica "
      + "has not heard of (another replica's picks, a restart), or an index still cold");

  private final String label;
  private final String why;

  MissCause(String label, String why) {
    this.label = label;
    this.why = why;
  }

  /** The metric label. */
  public String label() {
    return label;
  }

  /** The sentence an operator reads. */
  public String why() {
    return why;
  }
}
