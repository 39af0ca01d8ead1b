package io.llmgw.sim.engine;

/**
 * One generation request as the engine sees it.
 *
 * @param model the name the client asked for (base model or adapter)
 * @param adapter the adapter to run, or null for the base model
 * @param promptTokens prompt length in tokens
 * @param prefixBlocks chained hashes of the prompt's full blocks (keyed by adapter), for prefix-cache reuse
 * @param maxTokens tokens to generate
 * @param lengthCapped true when the client set {@code max_tokens} (finish reason "length")
 * @param priority vLLM's request priority: lower goes first under priority scheduling (default 0)
 * @param promptTokenIds the prompt's token ids ({@link SimTokens}), which KV-cache events carry; empty when a test
 *     gives only a length
 * @param remoteKvTokens prompt tokens whose KV cache was pulled from a prefill pod (disaggregated serving), so not
 *     computed here; 0 for a request served whole
 */
public record SimRequest(String model, String adapter, int promptTokens, long[] prefixBlocks, int maxTokens,
    boolean lengthCapped, int priority, int[] promptTokenIds, int remoteKvTokens) {
  private static final int[] NO_TOKENS = new int[0];

  public SimRequest(String model, String adapter, int promptTokens, long[] prefixBlocks, int maxTokens,
      boolean lengthCapped, int priority, int[] promptTokenIds) {
    this(model, adapter, promptTokens, prefixBlocks, maxTokens, lengthCapped, priority, promptTokenIds, 0);
  }

  /** The same request, its first {@code tokens} prompt tokens' KV cache pulled from a prefill pod. */
  public SimRequest withRemoteKv(int tokens) {
    return new SimRequest(model, adapter, promptTokens, prefixBlocks, maxTokens, lengthCapped, priority,
        promptTokenIds, tokens);
  }

  public SimRequest(String model, String adapter, int promptTokens, long[] prefixBlocks, int maxTokens,
      boolean lengthCapped, int priority) {
    this(model, adapter, promptTokens, prefixBlocks, maxTokens, lengthCapped, priority, NO_TOKENS);
  }

  public SimRequest(String model, String adapter, int promptTokens, long[] prefixBlocks, int maxTokens,
      boolean lengthCapped) {
    this(model, adapter, promptTokens, prefixBlocks, maxTokens, lengthCapped, 0);
  }
}
