package io.llmgw.extproc.body;

/**
 * What the streaming scan found: the model, the byte range of its JSON string value (so it can be replaced without
 * re-serialising the body), the byte range of the prompt ({@code prompt} or {@code messages}) for prefix hashing, and
 * OpenAI's {@code user} field (null when absent, not a string, or longer than a session id may be) for session affinity,
 * and the output the request allows ({@code max_completion_tokens}, else {@code max_tokens}; 0 when neither is a
 * positive whole number) for the latency model.
 */
public record ExtractedBody(String model, long modelStart, long modelEnd, long promptStart, long promptEnd,
    String user, int maxTokens) implements BodyScan {
  public boolean hasPrompt() {
    return promptEnd > promptStart;
  }
}
