package io.llmgw.extproc.routing;

/** How far a request has come: just arrived, let out of the flow-control queue, or its adapter was loaded for it. */
public sealed interface Stage {
  Stage FRESH = new Fresh();

  /** Admission has not run yet. */
  record Fresh() implements Stage {}

  /** Flow control let it go: admission is done, the choice made at arrival stands. */
  record Dispatched(Choice choice) implements Stage {}

  /** Its target was loaded on {@code address}, the only pod to pick; it is not loaded again. */
  record Loaded(Choice choice, String address) implements Stage {}
}
