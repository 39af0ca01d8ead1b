package io.llmgw.extproc.request.prepare;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.tokens.HuggingFaceTokenizer;
import io.llmgw.extproc.tokens.RemoteTokenizer;
import io.llmgw.extproc.tokens.Tokenizer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The prompt's token ids as the model server computes them, for matching the engines' KV-cache events. The simulator's
 * tokenizer waits for the first reader and reads at most {@code maxPromptBytes} of the prompt; a model's own files
 * ({@code hf:}) and a render server are handed the whole request when it is prepared, and the request waits for them
 * holding no thread.
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

  /**
   * A remote tokenizer is asked for the whole request now (chat and completions only; it renders the rest of the
   * request too), and the request waits for its answer; an in-process one tokenizes when first read.
   */
  @Override
  public CompletableFuture<?> produceLater(RequestContext ctx) {
    if (!(tokenizer instanceof RemoteTokenizer) && !(tokenizer instanceof HuggingFaceTokenizer)) {
      produce(ctx);
      return null;
    }
    String path = ctx.headers().getOrDefault(":path", "");
    int query = path.indexOf('?');
    String api = query < 0 ? path : path.substring(0, query);
    if (tokenizer instanceof HuggingFaceTokenizer model) {
      CompletableFuture<int[]> ids = model.tokenize(api, ctx.body().bytes());
      ctx.attributes().put(RequestAttributes.PROMPT_TOKENS, new PromptTokens(() -> ids.getNow(null)));
      return ids.isDone() ? null : ids;
    }
    RemoteTokenizer remote = (RemoteTokenizer) tokenizer;
    boolean chat = api.equals("/v1/chat/completions");
    if (!chat && !api.equals("/v1/completions")) {
      return null; // embeddings, the Responses API: vLLM's render server has no endpoint for them
    }
    CompletableFuture<int[]> ids = remote.render(chat, ctx.body().withModel(ctx.found(), remote.modelName()));
    ctx.attributes().put(RequestAttributes.PROMPT_TOKENS, new PromptTokens(() -> ids.getNow(null)));
    return ids;
  }

  @Override
  public void produce(RequestContext ctx) {
    ctx.attributes().put(RequestAttributes.PROMPT_TOKENS, new PromptTokens(() -> {
      byte[] prompt = ctx.promptPrefix(maxPromptBytes);
      return prompt.length == 0 ? null : tokenizer.tokenIds(prompt, prompt.length < maxPromptBytes);
    }));
  }
}
