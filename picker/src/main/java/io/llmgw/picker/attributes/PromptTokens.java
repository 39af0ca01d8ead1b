package io.llmgw.picker.attributes;

import io.llmgw.picker.kvcache.BlockKeys;
import java.util.Objects;

/**
 * A request's prompt as the engine's token ids, tokenized on first use, and its blocks' keys ({@link BlockKeys}) for
 * the last block size and adapter asked, so every scorer reading them tokenizes and hashes once.
 */
public final class PromptTokens {
  private static final int[] NO_TOKENS = new int[0];
  private static final long[] NO_KEYS = new long[0];

  /** Where the token ids come from; answers null when the prompt cannot be tokenized. */
  @FunctionalInterface
  public interface Source {
    int[] tokenIds();
  }

  private final Source source;
  private int[] ids;
  private int keysBlockSize;
  private String keysAdapter;
  private long[] keys;

  public PromptTokens(Source source) {
    this.source = source;
  }

  public static PromptTokens of(int[] ids) {
    return new PromptTokens(() -> ids);
  }

  /** The prompt's token ids; empty when it has none or cannot be tokenized. */
  public int[] ids() {
    if (ids == null) {
      int[] t = source.tokenIds();
      ids = t == null ? NO_TOKENS : t;
    }
    return ids;
  }

  /** Keys of the prompt's leading full blocks of {@code blockSize} tokens, cached under {@code adapter}. */
  public long[] blockKeys(int blockSize, String adapter, int maxBlocks) {
    if (keys == null || blockSize != keysBlockSize || !Objects.equals(adapter, keysAdapter)) {
      int[] t = ids();
      keys = t.length < blockSize ? NO_KEYS : BlockKeys.chain(t, blockSize, adapter, maxBlocks);
      keysBlockSize = blockSize;
      keysAdapter = adapter;
    }
    return keys;
  }
}
