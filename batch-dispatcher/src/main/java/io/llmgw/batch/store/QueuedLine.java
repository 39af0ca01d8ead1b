package io.llmgw.batch.store;

/**
 * One input line waiting to be sent. The queue orders a pool's lines by {@code deadline} (the batch's expiry, epoch
 * milliseconds): earliest deadline first.
 *
 * @param line the line's number in the input file, from 1, so outputs can follow the input's order
 * @param body the request body exactly as the line gave it (JSON text)
 */
public record QueuedLine(String batchId, String customId, int line, String pool, long deadline, String url,
    String body) {}
