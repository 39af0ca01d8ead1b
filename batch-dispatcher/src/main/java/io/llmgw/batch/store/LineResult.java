package io.llmgw.batch.store;

/**
 * One line's final answer, written at most once per {@code (batchId, customId)} whatever retries or crashes happened:
 * the first write wins.
 *
 * @param ok true for the output file, false for the error file
 * @param json the whole output line in OpenAI's format
 */
public record LineResult(String batchId, String customId, int line, boolean ok, String json) {}
