package io.llmgw.api;

/**
 * Text a client sent (a model name, a header value), made safe to put in a log line or an error message: at most
 * {@value #MAX_CHARS} characters (then {@code ...}), and every control or non-ASCII character shown as {@code ?}, so
 * that a newline cannot forge a second log line and a megabyte of header cannot fill the log.
 */
public final class ClientText {
  public static final int MAX_CHARS = 128;

  private ClientText() {}

  /** {@code 'value'}, sanitised; {@code (none)} for null. */
  public static String quote(String value) {
    return value == null ? "(none)" : "'" + clean(value) + "'";
  }

  /** The value sanitised, without quotes; empty for null; the value itself when it is already safe (no copy). */
  public static String clean(String value) {
    if (value == null) {
      return "";
    }
    if (value.length() <= MAX_CHARS && allSafe(value)) {
      return value;
    }
    int n = Math.min(value.length(), MAX_CHARS);
    StringBuilder out = new StringBuilder(n + 3);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      out.append(safe(c) ? c : '?');
    }
    return value.length() > MAX_CHARS ? out.append("...").toString() : out.toString();
  }

  private static boolean allSafe(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (!safe(value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean safe(char c) {
    return c >= 0x20 && c < 0x7f;
  }
}
