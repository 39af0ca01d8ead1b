package io.llmgw.extproc.tenancy.controller;

/**
 * One tenant with limits, as the status page and {@code llmgw status} show it: tokens spent in the last minute and
 * day and requests in flight (every replica's), and those waiting for its budget here. {@link Long#MAX_VALUE}
 * and {@link Integer#MAX_VALUE} limits are none.
 */
public record TenantRow(String tenant, long lastMinute, long perMinute, long lastDay, long perDay, int inFlight,
    int maxConcurrent, int waiting) {}
