package io.llmgw.picker.kvcache;

import io.llmgw.picker.Mix64;
import net.openhft.hashing.LongHashFunction;

/**
 * The gateway's own key for a KV-cache block: a chain over each block's token ids (xxHash64 of the block, mixed with
 * its parent's key), started from the adapter's name (the base model's blocks from a fixed seed). Allocation-free: a
 * request's prompt is keyed block by block on the request path. Computed from token ids alone, so the engine's events
 * and a request's prompt meet on the same key whatever hash function and seed the engine uses for its own block hashes.
 */
public final class BlockKeys {
  private static final long BASE_SEED = 0x6c6c6d67775f6b76L;

  private BlockKeys() {}

  /** The chain's start for blocks cached under {@code adapter} (null: the base model). */
  public static long root(String adapter) {
    return adapter == null ? BASE_SEED : Mix64.mix(BASE_SEED ^ LongHashFunction.xx().hashChars(adapter));
  }

  /** The key of the block holding {@code tokens[from .. from + blockSize)} after the block keyed {@code parent}. */
  public static long next(long parent, int[] tokens, int from, int blockSize) {
    return Mix64.mix(parent * 0x9e3779b97f4a7c15L ^ LongHashFunction.xx().hashInts(tokens, from, blockSize));
  }

  /** Keys of the prompt's leading full blocks, at most {@code maxBlocks}. */
  public static long[] chain(int[] tokens, int blockSize, String adapter, int maxBlocks) {
    int n = Math.min(maxBlocks, tokens.length / blockSize);
    long[] out = new long[n];
    long key = root(adapter);
    for (int i = 0; i < n; i++) {
      key = next(key, tokens, i * blockSize, blockSize);
      out[i] = key;
    }
    return out;
  }
}
