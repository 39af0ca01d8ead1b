package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.PrefixView;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.util.List;
import java.util.Set;

/**
 * llm-d's precise-prefix-cache-scorer: the share of the prompt's leading token blocks a pod's prefix cache holds, as the
 * pod's own KV-cache events report it ({@link EngineBlockIndex}), so every replica scores alike. For a pod whose events
 * are absent or not trusted (a loss it is relearning from), and for a prompt the tokenizer cannot tokenize (a chat
 * prompt without its template), it answers what the approximate prefix-cache scorer would: the share of the prompt's
 * byte blocks recently routed there.
 */
public final class PrecisePrefixCacheScorer implements Scorer, PrefixView {
  public static final String TYPE = "precise-prefix-cache-scorer";
  /** 16,384 tokens at vLLM's default block size of 16. */
  public static final int DEFAULT_MAX_TOKEN_BLOCKS = 1024;

  private final EngineBlockIndex engines;
  /** What it answers for pods without trusted events, and what it learns from routing for them. */
  private final PrefixCacheScorer approximate;
  private final int maxBlocks;

  public PrecisePrefixCacheScorer(EngineBlockIndex engines, PrefixHasher hasher, int lruCapacityPerServer,
      int maxBlocks) {
    this(engines, new PrefixCacheScorer(hasher, lruCapacityPerServer), maxBlocks);
  }

  /** @param approximate what it answers for pods without trusted events, and records where prompts went into */
  public PrecisePrefixCacheScorer(EngineBlockIndex engines, PrefixCacheScorer approximate, int maxBlocks) {
    this.engines = engines;
    this.approximate = approximate;
    this.maxBlocks = maxBlocks;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.PROMPT_TOKENS, RequestAttributes.PROMPT_BLOCKS);
  }

  @Override
  public PrefixHasher hasher() {
    return approximate.hasher();
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    PromptTokens tokens = request.attribute(RequestAttributes.PROMPT_TOKENS);
    PromptBlocks blocks = request.attribute(RequestAttributes.PROMPT_BLOCKS);
    // tokenized only when some pod's events can be matched: without them the tokens would go unread. A salted
    // request is matched approximately: the engines' events do not say which salt a block was stored under, and
    // the approximate chain does
    Boolean tokenized = tokens == null || blocks != null && blocks.salted() ? Boolean.FALSE : null;
    for (int i = 0; i < candidates.size(); i++) {
      EndpointState e = candidates.get(i);
      EngineBlockIndex.View engine = tokenized == Boolean.FALSE ? null : engines.view(e.address());
      if (engine != null && tokenized == null) {
        tokenized = tokens.ids().length > 0; // else the prompt is matched approximately
      }
      if (engine == null || !tokenized) {
        out[i] = cachedShare(e.address(), request.prefixBlocks());
        continue;
      }
      String adapter = e.metrics().baseModels().contains(request.model()) ? null : request.model();
      long[] keys = tokens.blockKeys(engine.blockSize(), adapter, maxBlocks);
      out[i] = keys.length == 0 ? 0.0 : (double) engine.matched(keys) / keys.length;
    }
  }

  /** The approximate share, from where this replica routed prompts. */
  @Override
  public double cachedShare(String address, long[] blocks) {
    return approximate.cachedShare(address, blocks);
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    approximate.onPicked(request, primary);
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    approximate.retainOnly(addresses);
  }
}
