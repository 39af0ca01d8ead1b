package io.llmgw.extproc.body;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Eight bytes of a JSON string's text tested at once (SWAR), so that a prompt's plain text passes a word at a time. */
final class StringWords {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101_0101_0101_0101L;
  private static final long HIGH_BITS = 0x8080_8080_8080_8080L;

  private StringWords() {}

  /**
   * Whether the eight bytes at {@code i} are all printable ASCII other than a quote and a backslash: nothing in them
   * ends the string, escapes, or starts a multi-byte character. Each test below is exact for "some byte of the word
   * is": below 0x20 (a control character), 0x22 ({@code "}), 0x5C ({@code \}), or 0x80 and above (the high bit); a
   * borrow only crosses from a byte that already answered yes.
   */
  static boolean plain(byte[] b, int i) {
    long w = (long) LONGS.get(b, i);
    long quote = w ^ 0x2222_2222_2222_2222L;
    long backslash = w ^ 0x5C5C_5C5C_5C5C_5C5CL;
    long special = (w - 0x2020_2020_2020_2020L) & ~w | (quote - ONES) & ~quote | (backslash - ONES) & ~backslash | w;
    return (special & HIGH_BITS) == 0;
  }
}
