package io.llmgw.picker;

/** What a scorer that tracks where prompts went believes a pod's prefix cache holds of a prompt. */
public interface PrefixView {
  /** The share (0–1) of the prompt's leading blocks the pod likely caches; 0 for a prompt without blocks. */
  double cachedShare(String address, long[] blocks);
}
