package io.llmgw.extproc.body;

/**
 * The {@code usage} block of an OpenAI response.
 *
 * @param cachedTokens the prompt tokens the engine found in its prefix cache ({@code prompt_tokens_details.cached_tokens},
 *     the Responses API's {@code input_tokens_details.cached_tokens}; vLLM reports it with
 *     {@code --enable-prompt-tokens-details}), or -1 when the response does not say
 */
public record TokenUsage(long promptTokens, long completionTokens, long cachedTokens) {
  public TokenUsage(long promptTokens, long completionTokens) {
    this(promptTokens, completionTokens, -1);
  }

  /** Above any model's context window: a count this large is garbage from the pod, not usage. */
  public static final long MAX_PLAUSIBLE = 50_000_000;
  /** A usage block whose counts are not whole numbers (negative, fractional, text). */
  public static final TokenUsage MALFORMED = new TokenUsage(-1, -1, -1);

  /** Whether the counts can be believed: whole, not negative, not absurd. */
  public boolean plausible() {
    return promptTokens >= 0 && completionTokens >= 0 && promptTokens <= MAX_PLAUSIBLE
        && completionTokens <= MAX_PLAUSIBLE;
  }

  /** Whether the engine reported its cached prompt tokens, and believably (no more than the prompt). */
  public boolean reportsCache() {
    return plausible() && cachedTokens >= 0 && cachedTokens <= promptTokens;
  }

  public long total() {
    return promptTokens + completionTokens;
  }
}
