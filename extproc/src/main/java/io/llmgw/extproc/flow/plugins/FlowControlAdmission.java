package io.llmgw.extproc.flow.plugins;

import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.flow.controller.Ticket;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.request.admission.AdmissionFacts;
import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.latency.ObjectiveCheck;
import io.llmgw.picker.latency.ObjectiveLimits;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Late binding: a request without room (its pool saturated, or others of its pool waiting), or whose objective no
 * endpoint is predicted to meet now, waits in the EPP's flow-control queue instead of piling onto pods. It is let go
 * when a response ends or fresh metrics arrive and its pool has room (and, with limits, an endpoint is predicted to
 * meet what is left of them). A request for a pool at zero that may scale from zero waits for its first pod.
 */
public final class FlowControlAdmission implements AdmissionStep {
  public static final String TYPE = "flow-control";

  private final FlowControl flow;
  private final Clock clock;
  private final Datastore datastore;

  public FlowControlAdmission(FlowControl flow, Clock clock, Datastore datastore) {
    this.flow = flow;
    this.clock = clock;
    this.datastore = datastore;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.OBJECTIVE, FairnessIdProducer.FAIRNESS_ID);
  }

  @Override
  public Verdict admit(RequestContext ctx, AdmissionFacts facts) {
    boolean atZero = facts.flowControlOn() && facts.poolAtZero();
    if (!facts.flowControlOn() || !facts.anyReachable() && !atZero) {
      return Verdict.ADMIT;
    }
    if (!(facts.noRoom() || facts.objectiveUnmet())) {
      if (flow.sharing()) { // tokens served without waiting count toward the flow's share while others wait
        FlowShare share = FlowShare.of(ctx, datastore);
        flow.served(ctx.choice().pools(), ctx.priority(), share.flowId(), share.cost(), share.weight());
      }
      return Verdict.ADMIT;
    }
    FlowShare share = FlowShare.of(ctx, datastore);
    ObjectiveLimits limits = ctx.limits();
    // a pool at zero serves late rather than never: the wait for its first pod is the flow TTL, whatever the objective
    long deadline = clock.millis()
        + (limits.ttftMs() > 0 && !atZero ? (long) limits.ttftMs() : flow.settings().ttl().toMillis());
    Ticket ticket = flow.enqueue(ctx.choice().pools(), ctx.priority(), share.flowId(), share.cost(), share.weight(),
        ctx.body().size(), deadline, eligible(ctx, ctx.attributes().get(RequestAttributes.OBJECTIVE)));
    return new Verdict.Queue(new Step.Wait(
        ticket.outcome()
            .thenApply(refusal -> refusal.<Step.Resumption>map(Step.Resumption.Refuse::new)
                .orElse(new Step.Resumption.Proceed(null))),
        ticket::cancel));
  }

  /** Whether the pool's state lets the request go now: what is left of its limits can be met somewhere. */
  private static Predicate<List<EndpointState>> eligible(RequestContext ctx, ObjectiveCheck atAdmission) {
    return states -> {
      ObjectiveCheck left = atAdmission == null ? null : atAdmission.renewed(ctx.limits().after(ctx.waitedMillis()));
      return left == null || left.anyMeets(states);
    };
  }
}
