package io.llmgw.extproc.observe.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

/**
 * One sampled request's spans: the request's own, open from its arrival to the end of its exchange, and one child per
 * phase it goes through, one after the other. Used by the request's stream alone, one call at a time.
 */
public final class RequestTrace {
  private final Tracer tracer;
  private final Span request;
  private final Context inRequest;
  private Span phase;
  private boolean ended;

  RequestTrace(Tracer tracer, Span request) {
    this.tracer = tracer;
    this.request = request;
    this.inRequest = Context.root().with(request);
    phase("receive");
  }

  /** The previous phase ended; {@code name} starts, or nothing does when it is null. */
  public void phase(String name) {
    if (phase != null) {
      phase.end();
      phase = null;
    }
    if (name != null && !ended) {
      phase = tracer.spanBuilder("llmgw " + name).setParent(inRequest).startSpan();
    }
  }

  /** Something happened to the request at this moment (its response started, its first token came). */
  public void event(String name) {
    request.addEvent(name);
  }

  /** An attribute of the request's span, for the decision and its outcome. */
  public void attribute(String key, String value) {
    if (value != null) {
      request.setAttribute(key, value);
    }
  }

  public void attribute(String key, long value) {
    request.setAttribute(key, value);
  }

  /** The request's span ends; {@code failed} marks it as an error (an answer of 5xx, a broken exchange). */
  public void end(boolean failed) {
    if (ended) {
      return;
    }
    phase(null);
    ended = true;
    if (failed) {
      request.setStatus(StatusCode.ERROR);
    }
    request.end();
  }

  /**
   * The W3C {@code traceparent} for the request sent on to the pod: this request's span as the parent of whatever the
   * model server records.
   */
  public String traceparent() {
    SpanContext c = request.getSpanContext();
    return "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex();
  }
}
