package io.llmgw.adapters;

/** Which loads take a pod's loading slot first (model-mesh's order). */
enum LoadPriority {
  /** A request waits for it. */
  REQUESTED,
  /** Another copy, or a rollout's new version: wanted soon. */
  COPY,
  /** A recently used adapter loaded back into free room: only when nothing else needs the slot. */
  FILL;

  /** Not for a waiting request: may not take a pod's last loading slot. */
  boolean background() {
    return this != REQUESTED;
  }
}
