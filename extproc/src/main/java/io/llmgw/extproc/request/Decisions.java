package io.llmgw.extproc.request;

import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.picker.Explanation;

/** A request's decision as the decision log keeps it, from what the lifecycle's phases left in its context. */
final class Decisions {
  private Decisions() {}

  static DecisionLog.Entry entry(RequestContext ctx, Step step, long atMillis) {
    String outcome;
    String pod = null;
    if (step instanceof Step.Forward f) {
      outcome = "routed";
      pod = f.routed().decision().primary().address();
    } else {
      ErrorReply reply = ((Step.Answer) step).reply();
      outcome = reply.status() + " " + reply.code() + ": " + reply.message();
    }
    Explanation.Snapshot schedule = ctx.explanation().snapshot();
    return new DecisionLog.Entry(ctx.requestId(), atMillis,
        ctx.route() == null ? null : ctx.route().key().toString(), ctx.requestedModel(),
        ctx.choice() == null ? null : ctx.choice().target(), ctx.priority(), ctx.waitedMillis(), outcome, pod,
        schedule.candidates().isEmpty() && schedule.noEndpoint() == null ? null : schedule);
  }
}
