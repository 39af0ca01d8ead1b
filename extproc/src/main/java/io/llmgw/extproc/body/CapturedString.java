package io.llmgw.extproc.body;

import java.util.Arrays;

/** The raw bytes of one JSON string kept for decoding, up to a limit past which the string is not decoded at all. */
final class CapturedString {
  private byte[] bytes = new byte[32];
  private int length;
  private int limit;
  private boolean overflow;

  /** A new string: keep up to {@code limit} raw bytes of it (0: keep nothing). */
  void reset(int limit) {
    this.limit = limit;
    length = 0;
    overflow = false;
  }

  boolean wanted() {
    return limit > 0;
  }

  void keep(byte c) {
    if (limit > 0 && room(1)) {
      bytes[length++] = c;
    }
  }

  void keep(byte[] b, int from, int to) {
    int n = to - from;
    if (limit > 0 && n > 0 && room(n)) {
      System.arraycopy(b, from, bytes, length, n);
      length += n;
    }
  }

  /** The string, decoded, or null when it was not wanted or went past its limit. */
  String decoded() {
    return limit > 0 && !overflow ? JsonStrings.decode(bytes, length) : null;
  }

  /** A key: the known name its raw bytes spell (the same String every time), else decoded as {@link #decoded}. */
  String decodedKey() {
    if (limit > 0 && !overflow) {
      int known = KnownKeys.of(bytes, length);
      if (known >= 0) {
        return KnownKeys.NAMES.get(known);
      }
    }
    return decoded();
  }

  private boolean room(int n) {
    if (overflow || (long) length + n > limit) {
      overflow = true;
      return false;
    }
    if (length + n > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
    }
    return true;
  }
}
