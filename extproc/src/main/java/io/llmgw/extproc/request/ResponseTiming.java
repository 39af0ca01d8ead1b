package io.llmgw.extproc.request;

import io.llmgw.extproc.body.UsageSniffer;
import io.llmgw.extproc.objectives.controller.RequestTiming;
import io.llmgw.picker.Ticker;

/**
 * The moments of one request the EPP sees: arrival, dispatch to the pod, first response bytes, end, all by one
 * ticker. From them, what the latency model and the route's objectives learn; a non-streamed response has its first
 * token at its end.
 */
public final class ResponseTiming {
  private final Ticker ticker;
  private final long arrivalNanos;
  private long dispatchNanos;
  private long firstNanos;

  ResponseTiming(Ticker ticker) {
    this.ticker = ticker;
    this.arrivalNanos = ticker.nanos();
  }

  long waitedMillis() {
    return (ticker.nanos() - arrivalNanos) / 1_000_000;
  }

  void dispatched() {
    dispatchNanos = ticker.nanos();
  }

  /**
   * Response bytes went by: the first non-empty ones are the first token.
   *
   * @return whether these were the first
   */
  public boolean bytes(int size) {
    if (firstNanos == 0 && size > 0) {
      firstNanos = ticker.nanos();
      return true;
    }
    return false;
  }

  /** Whether any response bytes came: the pod worked on the request. */
  public boolean responded() {
    return firstNanos != 0;
  }

  /** What the response showed, or null when it was not observed whole (no dispatch, no bytes, no usage). */
  public RequestTiming complete(RequestContext ctx, UsageSniffer usage) {
    long endNanos = ticker.nanos();
    if (dispatchNanos == 0 || firstNanos == 0 || usage == null) {
      return null;
    }
    long first = usage.streaming() ? firstNanos : endNanos;
    long tokens = usage.usage() != null && usage.usage().plausible() ? usage.usage().completionTokens()
        : usage.dataEvents();
    double tpot;
    if (usage.streaming()) {
      tpot = tokens >= 2 ? (endNanos - first) / 1e6 / (tokens - 1) : Double.NaN;
    } else {
      tpot = tokens >= 1 ? (endNanos - dispatchNanos) / 1e6 / tokens : Double.NaN;
    }
    return new RequestTiming(ctx.route().route(), ctx.lease().address(), ctx.routed().loadAtPick(),
        ctx.promptTokens(), (first - arrivalNanos) / 1e6, (first - dispatchNanos) / 1e6, tpot, ctx.choice().target(),
        tokens);
  }
}
