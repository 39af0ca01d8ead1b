package io.llmgw.extproc.objectives.plugins;

import io.llmgw.api.ObjectiveFallback;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.admission.AdmissionFacts;
import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * A request whose latency objective no endpoint is predicted to meet now is refused 429 when its route says to shed
 * rather than queue ({@code objectiveFallback: Shed}, sheddable routes only).
 */
public final class ObjectiveShedding implements AdmissionStep {
  public static final String TYPE = "objective-shedding";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Verdict admit(RequestContext ctx, AdmissionFacts facts) {
    boolean shed = ctx.route().route().adapter().objectiveFallback() == ObjectiveFallback.SHED;
    return shed && facts.anyReachable() && facts.objectiveUnmet()
        ? new Verdict.Refuse(ErrorReply.objectiveUnattainable(ctx.requestedModel())) : Verdict.ADMIT;
  }

  /** What no endpoint may be predicted to meet. */
  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.OBJECTIVE);
  }
}
