package io.llmgw.api.keys;

/** The key in an {@code Authorization: Bearer …} header, as OpenAI's clients send it. */
public final class BearerKey {
  private BearerKey() {}

  /**
   * The key, or null when the header is absent, is not a bearer credential, or the key is empty, too long or holds
   * anything but printable ASCII (control characters included): such a value names no key and is never hashed.
   */
  public static String of(String authorization) {
    if (authorization == null || authorization.length() < 8
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String key = authorization.substring(7).strip();
    if (key.isEmpty() || key.length() > ApiKeys.MAX_KEY_LENGTH) {
      return null;
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return null;
      }
    }
    return key;
  }
}
