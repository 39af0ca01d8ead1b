package io.llmgw.batch.store;

/**
 * OpenAI's {@code request_counts} (lines in the batch, lines answered successfully, lines in the error file) and its
 * {@code usage}: the tokens its answered lines took, as their answers' {@code usage} said.
 */
public record RequestCounts(int total, int completed, int failed, long inputTokens, long outputTokens) {
  public RequestCounts(int total, int completed, int failed) {
    this(total, completed, failed, 0, 0);
  }
}
