package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * The prompt's leading blocks for prefix-cache affinity, hashed as the scheduling profile's prefix-tracking scorer
 * cuts them. Hashing waits for the first reader (admission with latency limits, or scheduling), once per target.
 */
public final class PromptBlocksProducer implements Producer {
  public static final String TYPE = RequestAttributes.PROMPT_BLOCKS.defaultProducer();

  private final PrefixHasher hasher;

  public PromptBlocksProducer(PrefixHasher hasher) {
    this.hasher = hasher;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(RequestAttributes.PROMPT_BLOCKS);
  }

  @Override
  public void produce(RequestContext ctx) {
    String salt = ctx.found() == null ? null : ctx.found().cacheSalt();
    // a salt too long to keep shares with no one: the request's own id stands in
    ctx.attributes().put(RequestAttributes.PROMPT_BLOCKS, new PromptBlocks(hasher, ctx,
        ExtractedBody.LONG_SALT.equals(salt) ? ctx.requestId() : salt));
  }
}
