package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.SessionKey;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/** The session a request names ({@link SessionKey}: a header, or OpenAI's {@code user} field when configured). */
public final class SessionIdProducer implements Producer {
  public static final String TYPE = RequestAttributes.SESSION_ID.defaultProducer();

  private final SessionKey key;

  public SessionIdProducer(SessionKey key) {
    this.key = key;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(RequestAttributes.SESSION_ID);
  }

  @Override
  public void produce(RequestContext ctx) {
    ctx.attributes().put(RequestAttributes.SESSION_ID, key.of(ctx.headers(), ctx.found().user()));
  }
}
