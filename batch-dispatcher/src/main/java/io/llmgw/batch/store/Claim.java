package io.llmgw.batch.store;

/**
 * A line one dispatcher took off the queue. Until it is finished or released, no other dispatcher gets it; if its owner
 * dies, the line returns to the queue (at once for the embedded store, after the visibility timeout for Redis).
 *
 * @param attempts how many times the line was claimed before, this claim not counted
 */
public record Claim(QueuedLine item, int attempts) {}
