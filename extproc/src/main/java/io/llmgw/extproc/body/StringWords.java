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
   * Where, from {@code i}, the plain text ends: the first eight-byte word at or after {@code i} that is not {@link
   * #plain}, or the place where fewer than eight bytes are left before {@code end}. Every byte before it is plain.
   */
  static int skipPlain(byte[] b, int i, int end) {
    while (end - i >= Long.BYTES && plain(b, i)) {
      i += Long.BYTES;
    }
    return i;
  }

  /**
   * Whether the eight bytes at {@code i} are all printable ASCII other than a quote and a backslash: nothing in them
   * ends the string, escapes, or starts a multi-byte character.
   */
  private static boolean plain(byte[] b, int i) {
    return (special(b, i) & HIGH_BITS) == 0;
  }

  /**
   * The word at {@code i} with a byte's high bit set where that byte may be special, exactly for "some byte of the word
   * is": below 0x20 (a control character), 0x22 ({@code "}), 0x5C ({@code \}), or 0x80 and above. For a byte below
   * 0x80, {@code x - 0x20} has its high bit only when {@code x < 0x20}, and {@code (x ^ q) - 1} only when {@code x == q};
   * at 0x80 and above the word's own high bit answers, and whatever the subtractions do there only adds to a yes. A
   * borrow only crosses from a byte that already answered yes.
   */
  private static long special(byte[] b, int i) {
    long w = (long) LONGS.get(b, i);
    return w | (w - 0x2020_2020_2020_2020L) | ((w ^ 0x2222_2222_2222_2222L) - ONES)
        | ((w ^ 0x5C5C_5C5C_5C5C_5C5CL) - ONES);
  }
}
