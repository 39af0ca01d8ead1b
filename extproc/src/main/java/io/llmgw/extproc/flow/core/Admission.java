package io.llmgw.extproc.flow.core;

import java.util.List;

/** What offering a request to the queue did: it waits (possibly by evicting others), or it was refused. */
public sealed interface Admission<T> {
  /** @param evicted lower-ranked items that left the queue to make room; each must be answered 429 */
  record Queued<T>(List<FlowItem<T>> evicted) implements Admission<T> {}

  /** @param reason why, for the 429 body */
  record Refused<T>(String reason) implements Admission<T> {}
}
