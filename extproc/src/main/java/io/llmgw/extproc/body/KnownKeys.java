package io.llmgw.extproc.body;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The top-level keys of OpenAI request bodies, matched by their raw bytes: a body's keys are read on every request,
 * and one of these needs no string built for it and no set entry to catch its repetition (a bit does).
 */
final class KnownKeys {
  static final List<String> NAMES = List.of("model", "messages", "prompt", "input", "stream", "stream_options",
      "max_tokens", "max_completion_tokens", "temperature", "top_p", "n", "stop", "user", "tools", "tool_choice",
      "response_format", "seed", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "logit_bias",
      "parallel_tool_calls", "metadata", "store", "instructions", "encoding_format", "dimensions", "priority",
      "suffix", "echo", "best_of");
  private static final int LONGEST = 24;

  static {
    if (NAMES.size() > Long.SIZE) {
      throw new AssertionError("a key's repetition is caught by one bit of a long per name");
    }
  }

  /** By length: the indexes into {@link #NAMES} of the names that long. */
  private static final int[][] BY_LENGTH = new int[LONGEST + 1][];
  private static final byte[][] BYTES = new byte[NAMES.size()][];

  static {
    int[] counts = new int[LONGEST + 1];
    for (int i = 0; i < NAMES.size(); i++) {
      BYTES[i] = NAMES.get(i).getBytes(StandardCharsets.US_ASCII);
      counts[BYTES[i].length]++;
    }
    for (int n = 0; n <= LONGEST; n++) {
      BY_LENGTH[n] = new int[counts[n]];
      counts[n] = 0;
    }
    for (int i = 0; i < NAMES.size(); i++) {
      int n = BYTES[i].length;
      BY_LENGTH[n][counts[n]++] = i;
    }
  }

  private static final Map<String, Integer> INDEX;

  static {
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < NAMES.size(); i++) {
      index.put(NAMES.get(i), i);
    }
    INDEX = Map.copyOf(index);
  }

  private KnownKeys() {}

  /** The index in {@link #NAMES} of this decoded key (however it was escaped), or -1. */
  static int of(String name) {
    Integer i = INDEX.get(name);
    return i == null ? -1 : i;
  }

  /** The index in {@link #NAMES} of the key whose raw bytes (between its quotes) these are, or -1. */
  static int of(byte[] raw, int length) {
    if (length > LONGEST) {
      return -1;
    }
    for (int candidate : BY_LENGTH[length]) {
      if (Arrays.equals(BYTES[candidate], 0, length, raw, 0, length)) {
        return candidate;
      }
    }
    return -1;
  }
}
