package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.tokens.Tokenizer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * The prompt's token ids as the model server computes them, for matching the engines' KV-cache events. Tokenizing
 * waits for the first reader, and reads at most {@code maxPromptBytes} of the prompt.
 */
public final class PromptTokensProducer implements Producer {
  public static final String TYPE = RequestAttributes.PROMPT_TOKENS.defaultProducer();
  public static final int DEFAULT_MAX_PROMPT_BYTES = 256 << 10;
  public static final String TOKENIZER = "tokenizer";

  private final Tokenizer tokenizer;
  private final int maxPromptBytes;

  public PromptTokensProducer(Tokenizer tokenizer, int maxPromptBytes) {
    this.tokenizer = tokenizer;
    this.maxPromptBytes = maxPromptBytes;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(RequestAttributes.PROMPT_TOKENS);
  }

  @Override
  public void produce(RequestContext ctx) {
    ctx.attributes().put(RequestAttributes.PROMPT_TOKENS, new PromptTokens(() -> {
      byte[] prompt = ctx.promptPrefix(maxPromptBytes);
      return prompt.length == 0 ? null : tokenizer.tokenIds(prompt, prompt.length < maxPromptBytes);
    }));
  }
}
