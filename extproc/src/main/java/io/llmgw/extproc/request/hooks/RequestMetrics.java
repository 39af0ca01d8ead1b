package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;

/**
 * Every request is counted once, by model, target, priority and code, and once more by reason when it failed; a routed
 * one's token usage too. Labels come
 * from the configuration (the route's model and target, the priority of the request's objective or route), never from
 * what a client sent; a request refused before its route or target was known has those labels empty.
 */
public final class RequestMetrics implements ResponseHook {
  public static final String TYPE = "request-metrics";

  private final EppMetrics metrics;

  public RequestMetrics(EppMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    // the request's own priority (its objective's, or its route's) and target once resolved, refused ones too: a 429
    // of the batch objective is counted at its priority, not in an unlabelled series
    String target = ctx.choice() == null ? "" : ctx.choice().target();
    String priority = ctx.route() == null ? "" : Integer.toString(ctx.priority());
    metrics.requestDone(ctx.routeModel(), target, priority, completion.code());
    if (completion.failed()) {
      metrics.requestFailed(ctx.routeModel(), completion.code(), completion.reason() != null ? completion.reason()
          : !completion.code().isEmpty() && Character.isDigit(completion.code().charAt(0)) ? "from_pod"
          : "ended_early");
    }
    if (ctx.lease() == null) {
      return;
    }
    if (ctx.routed() != null && ctx.routed().prefill() != null) {
      metrics.disaggregation(ctx.routed().prefill().outcome().label());
    }
    if (completion.usage() != null && completion.usage().plausible()) {
      metrics.tokens(ctx.routeModel(), completion.usage());
    }
    if (completion.timing() != null && completion.timing().clientTtftMs() >= 0) {
      metrics.timeToFirstToken(completion.timing().clientTtftMs() / 1000);
    }
  }
}
