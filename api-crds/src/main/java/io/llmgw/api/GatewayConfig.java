package io.llmgw.api;

import java.util.List;

/** Everything the control loop knows at one moment: pools, routes, objectives and pods, from a file or a cluster. */
public record GatewayConfig(List<InferencePool> pools, List<LLMRoute> routes, List<InferenceObjective> objectives,
    List<PodInfo> pods) {
  public GatewayConfig {
    pools = List.copyOf(pools);
    routes = List.copyOf(routes);
    objectives = List.copyOf(objectives);
    pods = List.copyOf(pods);
  }

  public static GatewayConfig empty() {
    return new GatewayConfig(List.of(), List.of(), List.of(), List.of());
  }
}
