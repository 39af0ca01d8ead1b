package io.llmgw.extproc.tenancy.core;

/** Whether a tenant's budget takes a request now. */
public sealed interface BudgetVerdict {
  record Reserved(Reservation reservation) implements BudgetVerdict {}

  /**
   * Not now: {@code limit} is the one reached ({@code tokens_per_minute}, {@code tokens_per_day} or
   * {@code concurrent_requests}); {@code retryAfterMillis} when the windows will have room for it (for concurrency,
   * unknown: 0).
   */
  record NotNow(String limit, long retryAfterMillis) implements BudgetVerdict {}

  /** Never: the request alone needs more than the whole limit (a budget of 0 takes nothing). */
  record Never(String limit, long limitTokens, long needed) implements BudgetVerdict {}
}
