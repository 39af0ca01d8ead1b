package io.llmgw.extproc.flow.plugins;

import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.state.Datastore;

/**
 * A routed request's exchange ended: its pod has room for one more, so waiting requests may go (free when none wait);
 * and its flow's share of tokens moves from what it was expected to cost to what it used.
 */
public final class FlowSignal implements ResponseHook {
  public static final String TYPE = "flow-signal";

  private final FlowControl flow;
  private final Datastore datastore;

  public FlowSignal(FlowControl flow, Datastore datastore) {
    this.flow = flow;
    this.datastore = datastore;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    if (ctx.lease() != null) {
      TokenUsage usage = completion.usage();
      if (usage != null && usage.plausible() && flow.sharing()) {
        FlowShare share = FlowShare.of(ctx, datastore);
        flow.settle(ctx.choice().pools(), ctx.priority(), share.flowId(), share.cost(), usage.total(), share.weight());
      }
      flow.signal();
    }
  }
}
