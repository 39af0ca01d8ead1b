package io.llmgw.extproc.body;

/** The {@code usage} block of an OpenAI response. */
public record TokenUsage(long promptTokens, long completionTokens) {}
