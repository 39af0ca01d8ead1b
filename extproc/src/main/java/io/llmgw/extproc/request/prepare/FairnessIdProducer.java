package io.llmgw.extproc.request.prepare;

import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.attributes.AttributeKey;
import java.util.Set;

/**
 * The flow a request shares fairly with others of its priority in flow control: the {@link EppProtocol} fairness
 * header's value when the request sends one, else its route. Tenancy will make this from the caller's identity.
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
    String header = ctx.hints().fairnessId();
    ctx.attributes().put(FAIRNESS_ID, header != null ? header : ctx.route().key().toString());
  }
}
