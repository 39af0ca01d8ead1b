package io.llmgw.picker;

/** The picker's answer: a decision, or the reason there is none (each maps to one status code upstream). */
public sealed interface PickOutcome {
  record Picked(Decision decision) implements PickOutcome {}

  /** No endpoint is ready, fresh and serving. */
  record NoReadyEndpoint(String detail) implements PickOutcome {}

  /** The proxy's subset hint was empty or matched none of the pool's endpoints. */
  record SubsetMismatch(String detail) implements PickOutcome {}
}
