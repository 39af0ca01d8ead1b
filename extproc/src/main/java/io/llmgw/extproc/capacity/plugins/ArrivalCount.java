package io.llmgw.extproc.capacity.plugins;

import io.llmgw.extproc.capacity.controller.ArrivalMeter;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.hooks.PreRequestHook;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;

/** Counts each request sent to a pod, and its prompt tokens, toward the pod's pool's arrival rate. */
public final class ArrivalCount implements PreRequestHook {
  public static final String TYPE = "capacity-arrivals";

  private final ArrivalMeter meter;

  public ArrivalCount(ArrivalMeter meter) {
    this.meter = meter;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void preRequest(RequestContext ctx, EndpointState primary) {
    String poolName = primary.endpoint().pool();
    for (PoolView p : ctx.choice().pools()) {
      if (p.key().name().equals(poolName)) {
        meter.picked(p.key(), ctx.promptTokens());
        return;
      }
    }
  }
}
