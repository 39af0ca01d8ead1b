package io.llmgw.picker;

import java.util.Map;

/**
 * Where a request names its session: a header (lower case, as HTTP/2 carries it), or OpenAI's {@code user} body field
 * when {@code fromUserField} is set and the header is absent. Ids longer than {@link #MAX_LENGTH} characters are not
 * sessions: affinity is a preference, and a table of huge keys would be memory a client chooses.
 */
public record SessionKey(String header, boolean fromUserField) {
  public static final String DEFAULT_HEADER = "x-session-id";
  public static final int MAX_LENGTH = 256;

  /** The request's session id, or null when it names none. */
  public String of(Map<String, String> headers, String userField) {
    String id = headers.get(header);
    if (usable(id)) {
      return id;
    }
    return fromUserField && usable(userField) ? userField : null;
  }

  private static boolean usable(String id) {
    return id != null && !id.isBlank() && id.length() <= MAX_LENGTH;
  }
}
