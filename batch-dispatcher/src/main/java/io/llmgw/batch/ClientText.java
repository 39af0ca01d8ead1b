package io.llmgw.batch;

/** Text from outside (a client's file, another service's answer) made safe for a message or a log line. */
public final class ClientText {
  private static final int MAX = 128;

  private ClientText() {}

  /** At most 128 characters, control characters shown as '?'. */
  public static String clip(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(s.length(), MAX) + 1);
    for (int i = 0; i < s.length() && i < MAX; i++) {
      char c = s.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return s.length() > MAX ? out.append('…').toString() : out.toString();
  }
}
