package io.llmgw.scraper;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The scraper's parser as it was before it read bytes (a line at a time from a decoded string), kept as the reference
 * {@link MetricsTextProperties} holds the byte parser to.
 */
final class StringTextParser {
  private StringTextParser() {}

  static ParsedMetrics parse(String text, Set<String> wanted) {
    String[] names = wanted.toArray(String[]::new);
    Map<String, List<Sample>> out = new HashMap<>();
    int skipped = 0;
    int pos = 0;
    int len = text.length();
    while (pos < len) {
      int eol = text.indexOf('\n', pos);
      if (eol < 0) {
        eol = len;
      }
      int start = pos;
      pos = eol + 1;
      while (start < eol && text.charAt(start) == ' ') {
        start++;
      }
      if (start >= eol || text.charAt(start) == '#') {
        continue;
      }
      int nameEnd = start;
      while (nameEnd < eol && isNameChar(text.charAt(nameEnd))) {
        nameEnd++;
      }
      if (nameEnd == start) {
        skipped++;
        continue;
      }
      String name = wantedName(text, start, nameEnd, names);
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

  /**
   * The wanted name the text spells between {@code start} and {@code end}, or null. Most lines of a page are series we
   * skip; comparing lengths first and regions in place spares each of them a substring and its hash.
   */
  private static String wantedName(String text, int start, int end, String[] names) {
    int length = end - start;
    for (String n : names) {
      if (n.length() == length && text.regionMatches(start, n, 0, length)) {
        return n;
      }
    }
    return null;
  }

  private static Sample parseSample(String text, String name, int pos, int eol) {
    Map<String, String> labels = Map.of();
    if (pos < eol && text.charAt(pos) == '{') {
      labels = new HashMap<>();
      pos = parseLabels(text, pos + 1, eol, labels);
      if (pos < 0) {
        return null;
      }
    }
    if (pos >= eol || (text.charAt(pos) != ' ' && text.charAt(pos) != '\t')) {
      return null;
    }
    while (pos < eol && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
      pos++;
    }
    int valueEnd = pos;
    while (valueEnd < eol && text.charAt(valueEnd) != ' ' && text.charAt(valueEnd) != '\r') {
      valueEnd++;
    }
    double value = PrometheusTextParser.parseValue(text.substring(pos, valueEnd)); // values are read alike
    return Double.isNaN(value) && !text.startsWith("NaN", pos) ? null : new Sample(name, labels, value);
  }

  /** Returns the index after the closing brace, or -1 when the label set is malformed. */
  private static int parseLabels(String text, int pos, int eol, Map<String, String> labels) {
    while (pos < eol) {
      char c = text.charAt(pos);
      if (c == '}') {
        return pos + 1;
      }
      if (c == ',' || c == ' ') {
        pos++;
        continue;
      }
      int keyEnd = pos;
      while (keyEnd < eol && isNameChar(text.charAt(keyEnd))) {
        keyEnd++;
      }
      if (keyEnd == pos || keyEnd + 1 >= eol || text.charAt(keyEnd) != '=' || text.charAt(keyEnd + 1) != '"') {
        return -1;
      }
      String key = text.substring(pos, keyEnd);
      StringBuilder value = new StringBuilder();
      int i = keyEnd + 2;
      boolean closed = false;
      while (i < eol) {
        char v = text.charAt(i);
        if (v == '\\' && i + 1 < eol) {
          char next = text.charAt(i + 1);
          value.append(next == 'n' ? '\n' : next);
          i += 2;
        } else if (v == '"') {
          closed = true;
          i++;
          break;
        } else {
          value.append(v);
          i++;
        }
      }
      if (!closed) {
        return -1;
      }
      labels.put(key, value.toString());
      pos = i;
    }
    return -1;
  }

  private static boolean isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
  }
}
