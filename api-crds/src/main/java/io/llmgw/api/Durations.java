package io.llmgw.api;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes/Go-style durations such as {@code 2s}, {@code 500ms}, {@code 1m30s}: parsed from configuration and flags,
 * and written so in messages (never Java's {@code PT5M}).
 */
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

  /** The duration as the configuration spells it: {@code 5m}, {@code 1m30s}, {@code 250ms}, {@code 0s}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    StringBuilder out = new StringBuilder(ms < 0 ? "-" : "");
    ms = Math.abs(ms);
    long[] units = {3_600_000, 60_000, 1_000, 1};
    String[] names = {"h", "m", "s", "ms"};
    for (int i = 0; i < units.length; i++) {
      if (ms >= units[i]) {
        out.append(ms / units[i]).append(names[i]);
        ms %= units[i];
      }
    }
    return out.toString();
  }
}
