package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.picker.EndpointState;

/**
 * The request counts in flight on its pod from the moment it is sent there until its exchange ends, whichever way
 * (response end, error, cancellation: the release is idempotent), and its prompt's uncached tokens (as the profile's
 * prefix view judged them at the pick) count as prefill work there until its first response bytes; a fallback the
 * proxy reports moves both to the pod that actually serves it.
 */
public final class InFlightLease implements PreRequestHook, ResponseHook {
  public static final String TYPE = "in-flight-lease";

  private final InFlightTracker inFlight;

  public InFlightLease(InFlightTracker inFlight) {
    this.inFlight = inFlight;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void preRequest(RequestContext ctx, EndpointState primary) {
    double cached = ctx.routed().loadAtPick().cachedShare();
    long uncached = Math.round(ctx.promptTokens() * (1 - Math.max(0, Math.min(1, cached))));
    ctx.holdLease(inFlight.acquire(primary.address(), ctx.choice().target(), uncached));
  }

  @Override
  public void onFirstBytes(RequestContext ctx) {
    if (ctx.lease() != null) {
      ctx.lease().firstToken();
    }
  }

  @Override
  public void onResponseHeaders(RequestContext ctx, String served) {
    if (ctx.lease() != null && served != null) {
      ctx.lease().moveTo(served);
    }
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    if (ctx.lease() != null) {
      ctx.lease().release();
    }
  }
}
