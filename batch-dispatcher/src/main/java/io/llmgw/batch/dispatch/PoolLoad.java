package io.llmgw.batch.dispatch;

/**
 * One pool's load as the EPP reports it on {@code GET /admin/load}.
 *
 * @param pods pods with fresh metrics
 * @param running requests the pods run
 * @param waiting requests waiting at the pods, counting what the EPP sent since their last report
 * @param flowWaiting requests the EPP holds in flow control for the pool
 */
public record PoolLoad(String pool, int pods, int running, int waiting, int flowWaiting) {}
