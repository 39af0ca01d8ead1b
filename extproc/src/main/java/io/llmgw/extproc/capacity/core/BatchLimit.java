package io.llmgw.extproc.capacity.core;

/**
 * The most requests a pod of a pool runs at once, which bounds the throughput its latency model may promise (a model
 * fitted below the limit says nothing above it). vLLM publishes neither its {@code --max-num-seqs} nor a running count
 * at it, so three sources meet: the pool's declaration (the operator's {@code --max-num-seqs}), the KV cache (a pod
 * cannot hold more requests of the pool's mean size than its cache has tokens for, prompts and outputs whole), and the
 * largest batch its pods ran while others waited (a floor: it was run, so the engine can run it). Without a declaration
 * the KV bound is not used: vLLM's default sequence limit is 256 or more, and a pod configured lower would be promised
 * far more than it serves.
 */
public final class BatchLimit {
  private BatchLimit() {}

  /**
   * @param declared the pool's {@code llmgw.io/max-batch}; 0 when undeclared
   * @param kvCacheTokens the smallest KV cache among the pool's pods, in tokens; 0 when unknown
   * @param tokensPerRequest the prompt and output tokens a request of the pool holds at most, on average
   * @param learned the largest batch run while requests waited; 0 when never seen
   * @return the limit; 0 when unknown
   */
  public static int of(int declared, long kvCacheTokens, double tokensPerRequest, int learned) {
    if (declared <= 0) {
      return Math.max(0, learned);
    }
    int limit = declared;
    if (kvCacheTokens > 0 && tokensPerRequest >= 1) {
      limit = (int) Math.max(1, Math.min(limit, Math.floor(kvCacheTokens / tokensPerRequest)));
    }
    return Math.max(limit, learned);
  }
}
