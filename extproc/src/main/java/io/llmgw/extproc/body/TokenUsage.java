package io.llmgw.extproc.body;

/** The {@code usage} block of an OpenAI response. */
public record TokenUsage(long promptTokens, long completionTokens) {
  /** Above any model's context window: a count this large is garbage from the pod, not usage. */
  public static final long MAX_PLAUSIBLE = 50_000_000;
  /** A usage block whose counts are not whole numbers (negative, fractional, text). */
  public static final TokenUsage MALFORMED = new TokenUsage(-1, -1);

  /** Whether the counts can be believed: whole, not negative, not absurd. */
  public boolean plausible() {
    return promptTokens >= 0 && completionTokens >= 0 && promptTokens <= MAX_PLAUSIBLE
        && completionTokens <= MAX_PLAUSIBLE;
  }

  public long total() {
    return promptTokens + completionTokens;
  }
}
