package io.llmgw.extproc.flow;

import io.llmgw.extproc.routing.ErrorReply;

/** Why a waiting request left the queue without being dispatched; the reply the client gets. */
public final class FlowRejection extends RuntimeException {
  private final ErrorReply reply;
  private final String outcome;

  FlowRejection(ErrorReply reply, String outcome) {
    super(reply.message(), null, false, false);
    this.reply = reply;
    this.outcome = outcome;
  }

  public ErrorReply reply() {
    return reply;
  }

  /** {@code full}, {@code evicted} or {@code expired}: the label it is counted under. */
  public String outcome() {
    return outcome;
  }
}
