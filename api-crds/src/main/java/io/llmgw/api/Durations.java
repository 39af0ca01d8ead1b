package io.llmgw.api;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses Kubernetes/Go-style durations such as {@code 2s}, {@code 500ms}, {@code 1m30s}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  private Durations() {}

  /** Returns null when the text is not a duration. */
  public static Duration parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    Matcher m = PART.matcher(text);
    int end = 0;
    double millis = 0;
    while (m.find()) {
      if (m.start() != end) {
        return null;
      }
      double v = Double.parseDouble(m.group(1));
      millis += switch (m.group(2)) {
        case "ms" -> v;
        case "s" -> v * 1_000;
        case "m" -> v * 60_000;
        default -> v * 3_600_000;
      };
      end = m.end();
    }
    return end == text.length() ? Duration.ofNanos(Math.round(millis * 1_000_000)) : null;
  }
}
