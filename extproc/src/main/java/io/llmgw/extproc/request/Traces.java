package io.llmgw.extproc.request;

import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.observe.tracing.RequestTrace;

/**
 * A sampled request's spans, from its lifecycle: a child span per phase as the request moves through them, and the
 * decision and its outcome on the request's span when the exchange ends. Attribute names follow OpenTelemetry's
 * GenAI and HTTP conventions where they have one, {@code llmgw.*} otherwise.
 */
final class Traces {
  private Traces() {}

  static void moved(RequestTrace trace, RequestState from, RequestState next) {
    switch (next) {
      case RESOLVE -> trace.phase("resolve");
      case PREPARE -> trace.phase("prepare");
      case ADMIT -> trace.phase("admission");
      case QUEUED -> trace.phase("admission wait");
      case LOAD -> trace.phase("load");
      case LOADING -> trace.phase("load wait");
      case PREPARING -> trace.phase("prepare wait");
      case SCHEDULE -> trace.phase("schedule");
      case ROUTED -> trace.phase(null);
      case RESPONDING -> trace.event("response started");
      case ANSWERED, DONE -> {
        if (from == RequestState.RECEIVING) {
          trace.event("ended before its body was complete");
          trace.end(true); // no decision was asked for, so no exchange end will come
        }
      }
      case RECEIVING -> {}
    }
  }

  static void event(RequestContext ctx, String name) {
    if (ctx.trace() != null) {
      ctx.trace().event(name);
    }
  }

  /** The exchange ended: the decision, its outcome, and the tokens, on the request's span, which ends. */
  static void end(RequestContext ctx, Completion completion) {
    RequestTrace trace = ctx.trace();
    if (trace == null) {
      return;
    }
    trace.attribute("gen_ai.request.model", ctx.requestedModel());
    if (ctx.route() != null) {
      trace.attribute("llmgw.route", ctx.route().key().toString());
      trace.attribute("llmgw.priority", ctx.priority());
    }
    if (ctx.choice() != null) {
      trace.attribute("llmgw.target", ctx.choice().target());
    }
    if (ctx.routed() != null) {
      trace.attribute("llmgw.pod", ctx.routed().decision().primary().address());
    }
    trace.attribute("llmgw.waited_ms", ctx.waitedMillis());
    trace.attribute("http.response.status_code", completion.code());
    if (completion.usage() != null && completion.usage().plausible()) {
      trace.attribute("gen_ai.usage.input_tokens", completion.usage().promptTokens());
      trace.attribute("gen_ai.usage.output_tokens", completion.usage().completionTokens());
    }
    if (ctx.explanation() != null && ctx.routed() != null) {
      trace.attribute("llmgw.decision", DecisionLog.oneLine(Decisions.entry(ctx, new Step.Forward(ctx.routed()), 0)));
    }
    trace.end(!completion.code().startsWith("2"));
  }
}
