package io.llmgw.extproc.flow.plugins;

import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.admission.AdmissionFacts;
import io.llmgw.extproc.request.admission.AdmissionStep;

/**
 * A sheddable request (priority below zero) is refused 429 while its pool has no room. A pool at zero is not full but
 * starting: its request waits in flow control like any other, which is how a pool only the batch service uses wakes.
 */
public final class SaturationShedding implements AdmissionStep {
  public static final String TYPE = "saturation-shedding";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Verdict admit(RequestContext ctx, AdmissionFacts facts) {
    return ctx.priority() < 0 && facts.noRoom() && !(facts.flowControlOn() && facts.poolAtZero())
        ? new Verdict.Refuse(ErrorReply.saturated(ctx.requestedModel())) : Verdict.ADMIT;
  }
}
