package io.llmgw.batch.store;

/**
 * A pool's queue at one moment.
 *
 * @param depth lines waiting or held by a dispatcher
 * @param oldestEnqueuedMillis when the oldest of them was queued (epoch milliseconds), or 0 when none
 */
public record QueueStats(long depth, long oldestEnqueuedMillis) {}
