package io.llmgw.extproc.request.admission;

import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.picker.Plugin;

/** Admission phase: whether the request may go on now, must wait, or is refused. */
public interface AdmissionStep extends Plugin {
  Verdict admit(RequestContext ctx, AdmissionFacts facts);

  sealed interface Verdict {
    /** Go on to the next step (the last one admits the request). */
    Verdict ADMIT = new Admit();

    record Admit() implements Verdict {}

    record Refuse(ErrorReply reply) implements Verdict {}

    /** The request waits (in flow control) and resumes at the load phase. */
    record Queue(Step.Wait until) implements Verdict {}
  }
}
