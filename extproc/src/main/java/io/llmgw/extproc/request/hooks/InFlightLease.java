package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.disagg.PrefillChoice;

/**
 * The request counts in flight on its pod from the moment it is sent there until its exchange ends, whichever way
 * (response end, error, cancellation: the release is idempotent), and its prompt's uncached tokens (as the profile's
 * prefix view judged them at the pick) count as prefill work there until its first response bytes; a fallback the
 * proxy reports moves both to the pod that actually serves it. A request split across a prefill and a decode pod
 * counts on both, its prompt on the prefill pod, until its first token.
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
    PrefillChoice split = ctx.routed().prefill();
    if (split != null && split.split()) {
      // the prompt is computed on the prefill pod; the decode pod pulls its KV cache and prefills nothing
      ctx.holdLease(inFlight.acquire(primary.address(), ctx.choice().target(), 0));
      ctx.holdPrefillLease(inFlight.acquire(split.prefill().address(), ctx.choice().target(), split.uncachedTokens()));
      return;
    }
    double cached = ctx.routed().loadAtPick().cachedShare();
    long uncached = Math.round(ctx.promptTokens() * (1 - Math.max(0, Math.min(1, cached))));
    ctx.holdLease(inFlight.acquire(primary.address(), ctx.choice().target(), uncached));
  }

  @Override
  public void onFirstBytes(RequestContext ctx) {
    if (ctx.lease() != null) {
      ctx.lease().firstToken();
    }
    if (ctx.prefillLease() != null) {
      ctx.prefillLease().release(); // its first token came from the decode pod: the prefill pod is done with it
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
    if (ctx.prefillLease() != null) {
      ctx.prefillLease().release();
    }
  }
}
