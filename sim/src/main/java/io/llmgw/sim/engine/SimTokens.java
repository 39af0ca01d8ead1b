package io.llmgw.sim.engine;

import net.openhft.hashing.LongHashFunction;

/**
 * The simulator's tokenizer: every 4 UTF-16 characters of the rendered prompt (the last group may be shorter) are one
 * token, whose id is the group's xxHash64 modulo {@value #VOCABULARY} (Llama 3's vocabulary size). It is what the
 * simulator counts, caches and reports in its KV-cache events, and what the gateway's {@code sim} tokenizer reproduces.
 */
public final class SimTokens {
  public static final int CHARS_PER_TOKEN = 4;
  public static final int VOCABULARY = 128_256;

  private SimTokens() {}

  public static int[] encode(String text) {
    int n = (text.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      int from = i * CHARS_PER_TOKEN;
      ids[i] = (int) Math.floorMod(
          LongHashFunction.xx().hashChars(text, from, Math.min(CHARS_PER_TOKEN, text.length() - from)), VOCABULARY);
    }
    return ids;
  }
}
