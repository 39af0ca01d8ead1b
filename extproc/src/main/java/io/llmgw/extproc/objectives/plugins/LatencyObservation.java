package io.llmgw.extproc.objectives.plugins;

import io.llmgw.extproc.objectives.controller.LatencyTracker;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.hooks.ResponseHook;

/** A response observed whole teaches the pod's latency model and counts toward its route's objectives. */
public final class LatencyObservation implements ResponseHook {
  public static final String TYPE = "latency-observation";

  private final LatencyTracker latency;

  public LatencyObservation(LatencyTracker latency) {
    this.latency = latency;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    if (completion.timing() != null) {
      latency.observe(completion.timing());
    }
  }
}
