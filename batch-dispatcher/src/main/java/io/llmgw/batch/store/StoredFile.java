package io.llmgw.batch.store;

/** An uploaded or generated file's metadata, as OpenAI's file object carries it. */
public record StoredFile(String id, String purpose, String filename, long bytes, long createdAt) {}
