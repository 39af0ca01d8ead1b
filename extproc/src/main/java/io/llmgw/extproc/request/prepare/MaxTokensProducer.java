package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * The output the request allows: {@code max_completion_tokens}, else {@code max_tokens}, when either is a positive
 * whole number (the body scan found it; nothing is parsed again).
 */
public final class MaxTokensProducer implements Producer {
  public static final String TYPE = RequestAttributes.MAX_OUTPUT_TOKENS.defaultProducer();

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(RequestAttributes.MAX_OUTPUT_TOKENS);
  }

  @Override
  public void produce(RequestContext ctx) {
    int max = ctx.found().maxTokens();
    ctx.attributes().put(RequestAttributes.MAX_OUTPUT_TOKENS, max > 0 ? max : null);
  }
}
