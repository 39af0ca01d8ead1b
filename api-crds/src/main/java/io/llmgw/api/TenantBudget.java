package io.llmgw.api;

import java.util.List;

/**
 * {@code inference.x-k8s.io/v1alpha1 TenantBudget}: what one tenant (its {@code metadata.name}, the name its API keys
 * or the operator's authentication give it) may spend and use. A limit of {@link #UNLIMITED} is no limit.
 *
 * @param routes the LLMRoute names (of the budget's namespace) the tenant may call; null: every route
 * @param priority the priority band its requests run in instead of their route's; null: the route's
 * @param weight its share of a priority band against other tenants, by tokens
 * @param demotedPriority where {@link OverBudget#DEMOTE} puts a request the budget cannot take
 * @param defaultOutputTokens what a request without {@code max_tokens} reserves for its output (its usage settles it)
 */
public record TenantBudget(String namespace, String name, long tokensPerMinute, long tokensPerDay,
    int maxConcurrentRequests, List<String> routes, Integer priority, int weight, OverBudget overBudget,
    int demotedPriority, int defaultOutputTokens) {
  public static final long UNLIMITED = Long.MAX_VALUE;
  public static final int UNLIMITED_REQUESTS = Integer.MAX_VALUE;
  public static final int DEFAULT_OUTPUT_TOKENS = 1024;

  public TenantBudget {
    routes = routes == null ? null : List.copyOf(routes);
  }

  public boolean mayUse(String routeName) {
    return routes == null || routes.contains(routeName);
  }

  public TenantBudget withNamespace(String ns) {
    return new TenantBudget(ns, name, tokensPerMinute, tokensPerDay, maxConcurrentRequests, routes, priority, weight,
        overBudget, demotedPriority, defaultOutputTokens);
  }

  /** The budget of a tenant no TenantBudget names: no limit, weight 1, every route. */
  public static TenantBudget unlimited(String tenant) {
    return new TenantBudget("", tenant, UNLIMITED, UNLIMITED, UNLIMITED_REQUESTS, null, null, 1, OverBudget.QUEUE,
        -1, DEFAULT_OUTPUT_TOKENS);
  }
}
