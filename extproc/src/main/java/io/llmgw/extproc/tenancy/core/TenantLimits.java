package io.llmgw.extproc.tenancy.core;

/**
 * What one tenant may spend: tokens in any minute and any day, requests in flight at once. {@link Long#MAX_VALUE} and
 * {@link Integer#MAX_VALUE} are no limit.
 */
public record TenantLimits(long tokensPerMinute, long tokensPerDay, int maxConcurrent) {
  public static final TenantLimits NONE = new TenantLimits(Long.MAX_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE);
}
