package io.llmgw.extproc.request.hooks;

import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;

/**
 * Every request is counted once, by model, target, priority and code; a routed one's token usage too. Labels come
 * from the configuration (the route's model and target), never from what a client sent.
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
    if (ctx.lease() == null) {
      metrics.requestDone(ctx.routeModel(), "", "", completion.code());
      return;
    }
    metrics.requestDone(ctx.routeModel(), ctx.choice().target(),
        Integer.toString(ctx.route().route().adapter().priority()), completion.code());
    if (completion.usage() != null) {
      metrics.tokens(ctx.routeModel(), completion.usage());
    }
    if (completion.timing() != null && completion.timing().clientTtftMs() >= 0) {
      metrics.timeToFirstToken(completion.timing().clientTtftMs() / 1000);
    }
  }
}
