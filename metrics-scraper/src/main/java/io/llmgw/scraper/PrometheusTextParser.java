package io.llmgw.scraper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tolerant parser for the Prometheus text exposition format, read from the bytes as they came. Only the wanted metric
 * names are parsed in full (a model server exposes hundreds of series and we need a handful); a malformed line is
 * skipped and counted, never fatal. Most of a page is lines we skip, so a skipped line costs a table lookup of its first
 * byte, a comparison of its first eight bytes with each wanted name's, and a search for its end eight bytes at a time;
 * nothing is decoded or allocated. Only a line that starts like a wanted name has its name read whole.
 */
public final class PrometheusTextParser {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long NEWLINES = ONES * '\n';
  private static final boolean[] NAME_CHAR = new boolean[256];

  static {
    for (int c = 0; c < 256; c++) {
      NAME_CHAR[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
    }
  }

  private PrometheusTextParser() {}

  /**
   * The metric names a parse keeps, prepared once: their bytes, which name lengths occur at all, and each name's first
   * eight bytes as one number, so that a line can be passed over by comparing the number at its start (most of a page
   * is histogram series whose names part from every wanted one within eight bytes).
   */
  public static final class Names {
    final String[] names;
    final byte[][] bytes;
    final boolean[] lengths;
    final long[] heads;

    Names(Set<String> wanted) {
      this.names = wanted.toArray(String[]::new);
      this.bytes = new byte[names.length][];
      int longest = 0;
      for (int i = 0; i < names.length; i++) {
        bytes[i] = names[i].getBytes(StandardCharsets.UTF_8);
        longest = Math.max(longest, bytes[i].length);
      }
      this.lengths = new boolean[longest + 1];
      long[] firsts = new long[bytes.length];
      for (int i = 0; i < bytes.length; i++) {
        lengths[bytes[i].length] = true;
        if (firsts != null && bytes[i].length < Long.BYTES) {
          firsts = null; // a name shorter than eight bytes: every line is looked at in full
        } else if (firsts != null) {
          firsts[i] = (long) LONGS.get(bytes[i], 0);
        }
      }
      this.heads = firsts;
    }

    /** Whether a name starting at {@code start} could be a wanted one, judged by its first eight bytes. */
    boolean mayStartAt(byte[] text, int start, int to) {
      if (heads == null || start + Long.BYTES > to) {
        return true;
      }
      long head = (long) LONGS.get(text, start);
      for (long h : heads) {
        if (h == head) {
          return true;
        }
      }
      return false;
    }
  }

  public static Names names(Set<String> wanted) {
    return new Names(wanted);
  }

  public static ParsedMetrics parse(String text, Set<String> wanted) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return parse(bytes, 0, bytes.length, names(wanted));
  }

  /** Parses {@code text[from, to)}; the array is not kept. */
  public static ParsedMetrics parse(byte[] text, int from, int to, Names wanted) {
    Map<String, List<Sample>> out = new HashMap<>();
    int skipped = 0;
    int pos = from;
    while (pos < to) {
      int start = pos;
      while (start < to && text[start] == ' ') {
        start++;
      }
      if (start >= to || text[start] == '\n') {
        pos = start + 1;
        continue;
      }
      if (text[start] == '#') {
        pos = lineEnd(text, start, to) + 1;
        continue;
      }
      if (!NAME_CHAR[text[start] & 0xff]) {
        skipped++;
        pos = lineEnd(text, start, to) + 1;
        continue;
      }
      if (!wanted.mayStartAt(text, start, to)) {
        pos = lineEnd(text, start, to) + 1;
        continue;
      }
      int nameEnd = start + 1;
      while (nameEnd < to && NAME_CHAR[text[nameEnd] & 0xff]) {
        nameEnd++;
      }
      int eol = lineEnd(text, nameEnd, to);
      pos = eol + 1;
      String name = wantedName(text, start, nameEnd, wanted);
      if (name == null) {
        continue;
      }
      Sample s = parseSample(text, name, nameEnd, eol);
      if (s == null) {
        skipped++;
      } else {
        out.computeIfAbsent(name, k -> new ArrayList<>(2)).add(s);
      }
    }
    return new ParsedMetrics(out, skipped);
  }

  /** The index of the first {@code '\n'} at or after {@code from}, or {@code to}: eight bytes per step. */
  static int lineEnd(byte[] text, int from, int to) {
    int i = from;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long x = (long) LONGS.get(text, i) ^ NEWLINES;
      long found = (x - ONES) & ~x & HIGHS;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (text[i] == '\n') {
        return i;
      }
    }
    return to;
  }

  private static String wantedName(byte[] text, int start, int end, Names wanted) {
    int length = end - start;
    if (length >= wanted.lengths.length || !wanted.lengths[length]) {
      return null;
    }
    for (int i = 0; i < wanted.bytes.length; i++) {
      byte[] n = wanted.bytes[i];
      if (n.length == length && Arrays.equals(text, start, end, n, 0, length)) {
        return wanted.names[i];
      }
    }
    return null;
  }

  private static Sample parseSample(byte[] text, String name, int pos, int eol) {
    Map<String, String> labels = Map.of();
    if (pos < eol && text[pos] == '{') {
      labels = new HashMap<>();
      pos = parseLabels(text, pos + 1, eol, labels);
      if (pos < 0) {
        return null;
      }
    }
    if (pos >= eol || (text[pos] != ' ' && text[pos] != '\t')) {
      return null;
    }
    while (pos < eol && (text[pos] == ' ' || text[pos] == '\t')) {
      pos++;
    }
    int valueEnd = pos;
    while (valueEnd < eol && text[valueEnd] != ' ' && text[valueEnd] != '\r') {
      valueEnd++;
    }
    String literal = new String(text, pos, valueEnd - pos, StandardCharsets.ISO_8859_1);
    double value = parseValue(literal);
    return Double.isNaN(value) && !literal.startsWith("NaN") ? null : new Sample(name, labels, value);
  }

  /** Returns the index after the closing brace, or -1 when the label set is malformed. */
  private static int parseLabels(byte[] text, int pos, int eol, Map<String, String> labels) {
    while (pos < eol) {
      byte c = text[pos];
      if (c == '}') {
        return pos + 1;
      }
      if (c == ',' || c == ' ') {
        pos++;
        continue;
      }
      int keyEnd = pos;
      while (keyEnd < eol && NAME_CHAR[text[keyEnd] & 0xff]) {
        keyEnd++;
      }
      if (keyEnd == pos || keyEnd + 1 >= eol || text[keyEnd] != '=' || text[keyEnd + 1] != '"') {
        return -1;
      }
      String key = new String(text, pos, keyEnd - pos, StandardCharsets.ISO_8859_1);
      int valueStart = keyEnd + 2;
      int i = valueStart;
      boolean escaped = false;
      while (i < eol && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < eol) {
          escaped = true;
          i++;
        }
        i++;
      }
      if (i >= eol) {
        return -1;
      }
      labels.put(key, escaped ? unescape(text, valueStart, i)
          : new String(text, valueStart, i - valueStart, StandardCharsets.UTF_8));
      pos = i + 1;
    }
    return -1;
  }

  /** A label value with backslash escapes: {@code \n} is a line feed, any other escaped byte stands for itself. */
  private static String unescape(byte[] text, int from, int to) {
    byte[] out = new byte[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      byte b = text[i];
      if (b == '\\' && i + 1 < to) {
        byte next = text[++i];
        out[n++] = next == 'n' ? (byte) '\n' : next;
      } else {
        out[n++] = b;
      }
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }

  static double parseValue(String s) {
    switch (s) {
      case "+Inf", "Inf" -> {
        return Double.POSITIVE_INFINITY;
      }
      case "-Inf" -> {
        return Double.NEGATIVE_INFINITY;
      }
      case "NaN" -> {
        return Double.NaN;
      }
      default -> {
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          return Double.NaN;
        }
      }
    }
  }
}
