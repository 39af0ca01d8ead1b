package io.llmgw.batch.store;

/** Why validation refused an input file, as OpenAI's batch {@code errors.data} entries say it. */
public record LineError(String code, String message, String param, Integer line) {}
