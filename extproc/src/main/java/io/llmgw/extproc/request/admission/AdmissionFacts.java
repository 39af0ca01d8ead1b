package io.llmgw.extproc.request.admission;

import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.flow.controller.PoolSet;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.latency.ObjectiveCheck;
import java.util.List;

/**
 * What admission steps ask about the request's pools, each answered at most once per decision and only when asked:
 * the cheap question (does anyone wait already?) before the costly one (saturation over every pod).
 */
public final class AdmissionFacts {
  private final RequestContext ctx;
  private final List<EndpointState> states;
  private final SaturationDetector saturation;
  private final FlowControl flow;
  private Boolean othersWaiting;
  private Boolean saturated;
  private Boolean objectiveUnmet;

  public AdmissionFacts(RequestContext ctx, List<EndpointState> states, SaturationDetector saturation,
      FlowControl flow) {
    this.ctx = ctx;
    this.states = states;
    this.saturation = saturation;
    this.flow = flow;
  }

  public List<EndpointState> states() {
    return states;
  }

  public boolean flowControlOn() {
    return flow.settings().enabled();
  }

  /** Requests already wait in flow control for these pools: a newcomer queues behind them, never overtakes. */
  public boolean othersWaiting() {
    if (othersWaiting == null) {
      othersWaiting = flowControlOn() && flow.anyWaiting() && flow.hasWaiting(PoolSet.of(ctx.choice().pools()));
    }
    return othersWaiting;
  }

  public boolean saturated() {
    if (saturated == null) {
      saturated = saturation.saturated(states);
    }
    return saturated;
  }

  /** Saturated, or others are waiting for it. */
  public boolean noRoom() {
    return othersWaiting() || saturated();
  }

  /** Some endpoint's scrapes succeed: waiting can help (with none, the picker answers 503 at once). */
  public boolean anyReachable() {
    for (EndpointState e : states) {
      if (e.scrapeHealthy()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The request's pools have no endpoint at all and one of them may scale to zero ({@code llmgw.io/min-replicas: "0"}):
   * a pod is being asked for, so the request waits for it (up to the flow TTL) instead of a 503 now.
   */
  public boolean poolAtZero() {
    return states.isEmpty() && PoolView.mayScaleFromZero(ctx.choice().pools());
  }

  /**
   * The request has latency limits left ({@link RequestAttributes#OBJECTIVE}) and no endpoint is predicted to meet them now, while something of ours runs on
   * the pool (when nothing does, waiting cannot help and the model may be wrong: it is not held back).
   */
  public boolean objectiveUnmet() {
    if (objectiveUnmet == null) {
      ObjectiveCheck check = ctx.attributes().get(RequestAttributes.OBJECTIVE);
      objectiveUnmet = check != null && !check.spent() && !check.anyMeets(states) && !FlowControl.idle(states);
    }
    return objectiveUnmet;
  }
}
