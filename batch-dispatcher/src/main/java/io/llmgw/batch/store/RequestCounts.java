package io.llmgw.batch.store;

/** OpenAI's {@code request_counts}: lines in the batch, lines answered successfully, lines in the error file. */
public record RequestCounts(int total, int completed, int failed) {}
