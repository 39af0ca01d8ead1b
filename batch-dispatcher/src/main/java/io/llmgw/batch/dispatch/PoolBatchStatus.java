package io.llmgw.batch.dispatch;

/**
 * One pool's batch queue and budget, as {@code ./llmgw status} shows them.
 *
 * @param depth lines queued or in flight
 * @param oldestAgeSeconds age of the oldest of them, 0 when none
 * @param throttled the gateway answered 429 or 503 and no fresh reading has come since
 */
public record PoolBatchStatus(String pool, long depth, double oldestAgeSeconds, Budget budget, int inFlight,
    boolean throttled) {}
