package io.llmgw.cli;

import io.llmgw.api.AdapterTarget;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.PodInfo;
import io.llmgw.loadgen.Workload;
import io.llmgw.sim.engine.SimConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the quickstart derives from its config file: simulated pods at the file's pod addresses and port, holding every
 * adapter the routes name, and a demonstration workload over the routes' model names (earlier routes more popular).
 */
/** @param sheddable the models of routes with a negative priority: their 429s under load are by design */
record QuickstartPlan(List<String> podIps, int port, SimConfig sim, Workload workload, Set<String> sheddable) {
  /** The model the "try it yourself" example asks for: the first adapter route, else the first route. */
  String exampleModel() {
    return workload.models().stream().filter(m -> !m.equals(sim.model())).findFirst()
        .orElse(workload.models().getFirst());
  }

  static QuickstartPlan from(GatewayConfig config, int maxLoras) {
    if (config.pools().size() != 1 || config.pools().getFirst().targetPorts().size() != 1) {
      throw new IllegalArgumentException("the quickstart config needs exactly one pool with one target port");
    }
    List<String> ips = new ArrayList<>();
    for (PodInfo p : config.pods()) {
      if (p.routable()) {
        ips.add(p.podIP());
      }
    }
    if (ips.isEmpty()) {
      throw new IllegalArgumentException("the quickstart config names no ready pod to simulate");
    }
    Set<String> adapters = new LinkedHashSet<>();
    List<String> models = new ArrayList<>();
    Set<String> sheddable = new LinkedHashSet<>();
    for (LLMRoute r : config.routes()) {
      models.add(r.modelName());
      if (r.adapter().priority() < 0) {
        sheddable.add(r.modelName());
      }
      if (r.adapter().targets().isEmpty()) {
        if (!r.modelName().equals(SimConfig.DEFAULT_MODEL)) {
          adapters.add(r.modelName());
        }
      } else {
        for (AdapterTarget t : r.adapter().targets()) {
          if (!t.name().equals(SimConfig.DEFAULT_MODEL)) {
            adapters.add(t.name());
          }
        }
      }
    }
    double[] weights = new double[models.size()];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = 1.0 / (i + 1); // first routes busiest: a skew the per-pod table makes visible
    }
    int cpuLoras = Math.max(maxLoras, adapters.size() - 1);
    // the pods answer as a vLLM started with --enable-auto-tool-choice (SDKs' tool calls work at their defaults) and
    // --enable-prompt-tokens-details (the gateway compares its cache predictions with what the engine reports)
    SimConfig sim = SimConfig.builder().adapters(List.copyOf(adapters)).loras(maxLoras, cpuLoras).decode(15, 0.5)
        .seed(42).autoToolChoice(true).promptTokensDetails(true).build();
    return new QuickstartPlan(ips, config.pools().getFirst().targetPorts().getFirst(), sim,
        Workload.of("quickstart", models, weights, 16, 96), Set.copyOf(sheddable));
  }
}
