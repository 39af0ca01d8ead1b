package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.flowcontrol.FlowControl;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;

/** A routed request's exchange ended: its pod has room for one more, so waiting requests may go (free when none wait). */
public final class FlowSignal implements ResponseHook {
  public static final String TYPE = "flow-signal";

  private final FlowControl flow;

  public FlowSignal(FlowControl flow) {
    this.flow = flow;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    if (ctx.lease() != null) {
      flow.signal();
    }
  }
}
