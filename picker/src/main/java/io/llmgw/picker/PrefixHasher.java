package io.llmgw.picker;

import net.openhft.hashing.LongHashFunction;

/**
 * Splits a prompt into fixed blocks (64 bytes ≈ 16 tokens) and chains xxHash64 over them, seeded by the model (and the
 * deployment's seed), so a block's hash stands for the whole prefix up to it. At most {@code maxBlocks} blocks are
 * hashed.
 */
public final class PrefixHasher {
  public static final int DEFAULT_BLOCK_BYTES = 64;
  public static final int DEFAULT_MAX_BLOCKS = 256;

  private final int blockBytes;
  private final int maxBlocks;
  private final LongHashFunction start;

  public PrefixHasher(int blockBytes, int maxBlocks) {
    this(blockBytes, maxBlocks, 0);
  }

  /** @param seed where each chain starts (0: xxHash64's own); replicas that share routed blocks share it */
  public PrefixHasher(int blockBytes, int maxBlocks, long seed) {
    if (blockBytes < 1 || maxBlocks < 1) {
      throw new IllegalArgumentException("prefix blocks need a size and a count of at least 1");
    }
    this.blockBytes = blockBytes;
    this.maxBlocks = maxBlocks;
    this.start = LongHashFunction.xx(seed);
  }

  public PrefixHasher() {
    this(DEFAULT_BLOCK_BYTES, DEFAULT_MAX_BLOCKS);
  }

  /** Only whole blocks count: a partial last block would not match a longer prompt sharing the prefix. */
  public long[] blocks(String model, byte[] prompt, int length) {
    int n = Math.min(maxBlocks, length / blockBytes);
    long[] out = new long[n];
    long chain = start.hashChars(model);
    for (int i = 0; i < n; i++) {
      chain = LongHashFunction.xx(chain).hashBytes(prompt, i * blockBytes, blockBytes);
      out[i] = chain;
    }
    return out;
  }

  public int blockBytes() {
    return blockBytes;
  }

  public int maxBytes() {
    return blockBytes * maxBlocks;
  }
}
