package io.llmgw.api;

/** What happens to a tenant's request that its budget cannot take now. */
public enum OverBudget {
  /** It waits until the window has room again, no longer than the flow-control TTL. */
  QUEUE,
  /** It goes on at the budget's demoted priority (sheddable when below 0), still charged. */
  DEMOTE,
  /** It is refused: 429 with a {@code Retry-After} computed from the window. */
  REFUSE
}
