package io.llmgw.api;

import java.util.List;

/**
 * Everything the control loop knows at one moment: pools, routes, objectives, pods and tenants' budgets, from a file or
 * a cluster.
 */
public record GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
    List<PodInfo> pods, List<TenantBudget> budgets) {
  public GatewayConfig {
    pools = List.copyOf(pools);
    routes = List.copyOf(routes);
    objectives = List.copyOf(objectives);
    pods = List.copyOf(pods);
    budgets = List.copyOf(budgets);
  }

  public GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
      List<PodInfo> pods) {
    this(pools, routes, objectives, pods, List.of());
  }

  public static GatewayConfig empty() {
    return new GatewayConfig(List.of(), List.of(), List.of(), List.of(), List.of());
  }
}
