package io.llmgw.extproc.flow.plugins;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.state.Datastore;

/**
 * How flow control's token fairness sees one request: its flow (the tenant; else the fairness header's; else its
 * route), what it is expected to cost (its reservation, else its prompt's estimated tokens: the output is charged when
 * its usage settles it), and its flow's weight (its tenant's). Made the same way when it is admitted and when it
 * settles, so the two agree.
 */
public record FlowShare(String flowId, long cost, int weight) {
  public static FlowShare of(RequestContext ctx, Datastore datastore) {
    String tenant = ctx.tenant();
    if (tenant != null) {
      long cost = ctx.reservation() != null ? ctx.reservation().tokens() : ctx.promptTokens();
      return new FlowShare(tenant, cost, datastore.topology().budget(tenant).weight());
    }
    String flowId = ctx.attributes().get(FairnessIdProducer.FAIRNESS_ID);
    return new FlowShare(flowId != null ? flowId : ctx.route().name(), ctx.promptTokens(), 1);
  }
}
