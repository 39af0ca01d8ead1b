package io.llmgw.extproc.body;

/**
 * What the streaming scan found: the model, the byte range of its JSON string value (so it can be replaced without
 * re-serialising the body), the byte range of the prompt ({@code prompt} or {@code messages}) for prefix hashing, and
 * OpenAI's {@code user} field (null when absent, not a string, or longer than a session id may be) for session affinity,
 * the output the request allows ({@code max_completion_tokens}, else {@code max_tokens}; 0 when neither is a
 * positive whole number) for the latency model, and vLLM's {@code cache_salt} (null when absent or not a string;
 * {@link #LONG_SALT} when longer than {@link #MAX_SALT_CHARS}), which keeps a request's cache apart from others'.
 */
public record ExtractedBody(String model, long modelStart, long modelEnd, long promptStart, long promptEnd,
    String user, int maxTokens, String cacheSalt) implements BodyScan {
  /** Longer salts are not kept: such a request shares its cache with no other (a salt of its own stands in). */
  public static final int MAX_SALT_CHARS = 1024;
  public static final String LONG_SALT = "\u0000a cache_salt over " + MAX_SALT_CHARS + " characters";

  public ExtractedBody(String model, long modelStart, long modelEnd, long promptStart, long promptEnd, String user,
      int maxTokens) {
    this(model, modelStart, modelEnd, promptStart, promptEnd, user, maxTokens, null);
  }

  public boolean hasPrompt() {
    return promptEnd > promptStart;
  }
}
