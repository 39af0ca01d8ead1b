package io.llmgw.extproc.body;

/**
 * What the streaming scan found: the model, the byte range of its JSON string value (so it can be replaced without
 * re-serialising the body), and the byte range of the prompt ({@code prompt} or {@code messages}) for prefix hashing.
 */
public record ExtractedBody(String model, long modelStart, long modelEnd, long promptStart, long promptEnd) {
  public boolean hasPrompt() {
    return promptEnd > promptStart;
  }
}
