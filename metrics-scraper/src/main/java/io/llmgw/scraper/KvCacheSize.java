package io.llmgw.scraper;

/**
 * How large a pod's KV cache is, as vLLM's {@code vllm:cache_config_info} says: static configuration.
 *
 * @param blocks {@code num_gpu_blocks}, at least 1
 * @param blockSize {@code block_size} in tokens; 0 when the page does not say or says nonsense
 */
public record KvCacheSize(long blocks, int blockSize) {
  /** The tokens it holds; 0 when the block size is unknown. */
  public long tokens() {
    return blocks * blockSize;
  }
}
