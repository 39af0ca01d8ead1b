package io.llmgw.batch.store;

/**
 * One line's final answer, written at most once per {@code (batchId, customId)} whatever retries or crashes happened:
 * the first write wins.
 *
 * @param ok true for the output file, false for the error file
 * @param json the whole output line in OpenAI's format
 * @param inputTokens what the answer's {@code usage} says its prompt took (0 when it says nothing believable)
 * @param outputTokens what it says the answer took
 */
public record LineResult(String batchId, String customId, int line, boolean ok, String json, long inputTokens,
    long outputTokens) {
  public LineResult(String batchId, String customId, int line, boolean ok, String json) {
    this(batchId, customId, line, ok, json, 0, 0);
  }
}
