package io.llmgw.extproc.server;

import io.llmgw.extproc.body.UsageSniffer;
import io.llmgw.extproc.latency.RequestTiming;
import io.llmgw.extproc.routing.RoutingResult;

/**
 * The moments of one request the EPP sees: arrival, dispatch to the pod, first response bytes, end. From them, what the
 * latency model and the route's objectives learn; a non-streamed response has its first token at its end.
 */
final class ResponseTiming {
  private final long arrivalNanos;
  private long dispatchNanos;
  private long firstNanos;

  ResponseTiming(long arrivalNanos) {
    this.arrivalNanos = arrivalNanos;
  }

  long arrivalNanos() {
    return arrivalNanos;
  }

  void dispatched(long now) {
    dispatchNanos = now;
  }

  void bytes(long now, int size) {
    if (firstNanos == 0 && size > 0) {
      firstNanos = now;
    }
  }

  /** Null when the response was not a complete success, or nothing came. */
  RequestTiming complete(RoutingResult.Routed routed, UsageSniffer usage, long endNanos) {
    if (dispatchNanos == 0 || firstNanos == 0 || usage == null) {
      return null;
    }
    long first = usage.streaming() ? firstNanos : endNanos;
    long tokens = usage.usage() != null ? usage.usage().completionTokens() : usage.dataEvents();
    double tpot;
    if (usage.streaming()) {
      tpot = tokens >= 2 ? (endNanos - first) / 1e6 / (tokens - 1) : Double.NaN;
    } else {
      tpot = tokens >= 1 ? (endNanos - dispatchNanos) / 1e6 / tokens : Double.NaN;
    }
    return new RequestTiming(routed.route(), routed.lease().address(), routed.loadAtPick(), routed.promptTokens(),
        (first - arrivalNanos) / 1e6, (first - dispatchNanos) / 1e6, tpot);
  }
}
