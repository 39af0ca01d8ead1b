package io.llmgw.api;

import java.util.List;

/**
 * Everything the control loop knows at one moment: pools, routes, objectives, pods, tenants' budgets and llm-d's model
 * rewrites (oldest first, the order that gives their precedence), from a file or a cluster.
 */
public record GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
    List<PodInfo> pods, List<TenantBudget> budgets, List<ModelRewrite> rewrites) {
  public GatewayConfig {
    pools = List.copyOf(pools);
    routes = List.copyOf(routes);
    objectives = List.copyOf(objectives);
    pods = List.copyOf(pods);
    budgets = List.copyOf(budgets);
    rewrites = List.copyOf(rewrites);
  }

  public GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
      List<PodInfo> pods, List<TenantBudget> budgets) {
    this(pools, routes, objectives, pods, budgets, List.of());
  }

  public GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
      List<PodInfo> pods) {
    this(pools, routes, objectives, pods, List.of());
  }

  public static GatewayConfig empty() {
    return new GatewayConfig(List.of(), List.of(), List.of(), List.of(), List.of());
  }
}
