package io.llmgw.extproc.flow.controller;

import io.llmgw.extproc.reply.ErrorReply;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One request's place in a flow-control queue. {@link #outcome()} completes when the request leaves the queue:
 * empty when the pool has room for it (it is dispatched), or with the reply it gets instead (queue full, evicted,
 * expired). {@link #cancel()} takes it out when the client goes away.
 */
public interface Ticket {
  CompletableFuture<Optional<ErrorReply>> outcome();

  void cancel();
}
