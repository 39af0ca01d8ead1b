package io.llmgw.picker.attributes;

import io.llmgw.picker.PrefixHasher;

/**
 * A request's prompt cut into chained block hashes, per target model (an adapter's cache is not its base model's):
 * hashed on first use and kept for the last target asked, so admission and scheduling hash it once, and a request
 * nobody asks about is never hashed.
 */
public final class PromptBlocks {
  public static final long[] NONE = new long[0];

  /** Where the prompt's leading bytes come from (a request, without a capturing lambda per request). */
  @FunctionalInterface
  public interface Source {
    /** The prompt's leading bytes, at most {@code maxBytes} of them. */
    byte[] promptPrefix(int maxBytes);
  }

  private final PrefixHasher hasher;
  private final Source prompt;
  private final String salt;
  private String target;
  private long[] blocks;

  /** @param prompt read at most once per target, for {@code hasher.maxBytes()} bytes */
  public PromptBlocks(PrefixHasher hasher, Source prompt) {
    this(hasher, prompt, null);
  }

  /**
   * @param salt the request's cache salt (vLLM's {@code cache_salt}), or null: a salted prompt's blocks chain from
   *     the salt too, so they match only prompts under the same salt, as the engine's block hashes do
   */
  public PromptBlocks(PrefixHasher hasher, Source prompt, String salt) {
    this.hasher = hasher;
    this.prompt = prompt;
    this.salt = salt;
  }

  /** Whether the request carries a cache salt (vLLM's {@code cache_salt}). */
  public boolean salted() {
    return salt != null;
  }

  /** Blocks already hashed, whatever the target (tests, benchmarks). */
  public static PromptBlocks fixed(long[] blocks) {
    PromptBlocks b = new PromptBlocks(null, max -> new byte[0]);
    b.blocks = blocks;
    return b;
  }

  /** The prompt's blocks as hashed for {@code targetModel}. */
  public long[] of(String targetModel) {
    if (hasher == null) {
      return blocks;
    }
    if (!targetModel.equals(target)) {
      byte[] p = prompt.promptPrefix(hasher.maxBytes());
      blocks = hasher.blocks(salt == null ? targetModel : targetModel + '\u0000' + salt, p, p.length);
      target = targetModel;
    }
    return blocks;
  }
}
