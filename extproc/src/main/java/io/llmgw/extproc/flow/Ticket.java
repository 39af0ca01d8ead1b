package io.llmgw.extproc.flow;

import java.util.concurrent.CompletableFuture;

/**
 * One request's place in a flow-control queue. {@link #dispatched()} completes when the pool has room for it, or
 * exceptionally with a {@link FlowRejection} (queue full, evicted, expired); {@link #cancel()} takes it out when the
 * client goes away.
 */
public interface Ticket {
  CompletableFuture<Void> dispatched();

  void cancel();
}
