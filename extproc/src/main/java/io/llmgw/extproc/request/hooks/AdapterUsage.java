package io.llmgw.extproc.request.hooks;

import io.llmgw.adapters.UsageTracker;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.EndpointState;

/** The target was used on its pod now: eviction, copy scaling and the LRU-age gauge read it. */
public final class AdapterUsage implements PreRequestHook {
  public static final String TYPE = "adapter-usage";

  private final UsageTracker usage;

  public AdapterUsage(UsageTracker usage) {
    this.usage = usage;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void preRequest(RequestContext ctx, EndpointState primary) {
    usage.used(primary.address(), ctx.choice().target());
  }
}
