package io.llmgw.picker.attributes;

import io.llmgw.picker.PrefixHasher;
import java.util.function.Supplier;

/**
 * A request's prompt cut into chained block hashes, per target model (an adapter's cache is not its base model's):
 * hashed on first use and kept for the last target asked, so admission and scheduling hash it once, and a request
 * nobody asks about is never hashed.
 */
public final class PromptBlocks {
  public static final long[] NONE = new long[0];

  private final PrefixHasher hasher;
  private final Supplier<byte[]> prompt;
  private String target;
  private long[] blocks;

  /**
   * @param prompt the prompt's leading bytes, at most {@code hasher.maxBytes()} of them; read at most once per target
   */
  public PromptBlocks(PrefixHasher hasher, Supplier<byte[]> prompt) {
    this.hasher = hasher;
    this.prompt = prompt;
  }

  /** Blocks already hashed, whatever the target (tests, benchmarks). */
  public static PromptBlocks fixed(long[] blocks) {
    PromptBlocks b = new PromptBlocks(null, () -> new byte[0]);
    b.blocks = blocks;
    return b;
  }

  /** The prompt's blocks as hashed for {@code targetModel}. */
  public long[] of(String targetModel) {
    if (hasher == null) {
      return blocks;
    }
    if (!targetModel.equals(target)) {
      byte[] p = prompt.get();
      blocks = hasher.blocks(targetModel, p, p.length);
      target = targetModel;
    }
    return blocks;
  }
}
