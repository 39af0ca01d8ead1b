package io.llmgw.picker;

/**
 * A scorer that tracks where prompts went: the lifecycle hashes a request's prompt with its {@link #hasher()} before
 * scheduling, and it says what it believes a pod's prefix cache holds of a prompt. A profile reads the first such
 * scorer for both (the load a request meets, and the blocks it hands every scorer).
 */
public interface PrefixView {
  /** How the prompt is cut into blocks and hashed for this scorer. */
  PrefixHasher hasher();

  /** The share (0–1) of the prompt's leading blocks the pod likely caches; 0 for a prompt without blocks. */
  double cachedShare(String address, long[] blocks);
}
