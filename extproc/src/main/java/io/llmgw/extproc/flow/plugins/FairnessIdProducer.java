package io.llmgw.extproc.flow.plugins;

import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.prepare.Producer;
import io.llmgw.picker.attributes.AttributeKey;
import java.util.Set;

/**
 * The flow a request names to share fairly with others of its priority in flow control: the {@link EppProtocol}
 * fairness header's value. Absent, the request's flow is its route (flow control names it only when the request
 * queues, so a request that never waits builds no name). A request with a tenant shares as its tenant, whatever the
 * header says ({@link FlowShare}): a client cannot dodge its share by naming flows.
 */
public final class FairnessIdProducer implements Producer {
  public static final AttributeKey<String> FAIRNESS_ID = AttributeKey.of("fairness-id", String.class,
      "fairness-id-producer");
  public static final String TYPE = FAIRNESS_ID.defaultProducer();

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(FAIRNESS_ID);
  }

  @Override
  public void produce(RequestContext ctx) {
    ctx.attributes().put(FAIRNESS_ID, ctx.hints().fairnessId());
  }
}
