package io.llmgw.api;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks that span documents: unique names, routes that name existing pools, one route per model name. */
final class CrossChecks {
  private CrossChecks() {}

  static void check(String source, List<InferencePool> pools, List<LLMRoute> routes, List<PodInfo> pods,
      Map<String, Integer> routeDocs) throws ConfigException {
    Set<String> poolKeys = new HashSet<>();
    for (InferencePool p : pools) {
      if (!poolKeys.add(p.namespace() + "/" + p.name())) {
        throw new ConfigException(source, 0, "metadata.name", "InferencePool '" + p.name() + "' is declared twice");
      }
    }
    Set<String> podKeys = new HashSet<>();
    for (PodInfo p : pods) {
      if (!podKeys.add(p.namespace() + "/" + p.name())) {
        throw new ConfigException(source, 0, "metadata.name", "Pod '" + p.name() + "' is declared twice");
      }
    }
    Map<String, String> modelOwner = new HashMap<>();
    for (LLMRoute route : routes) {
      int doc = routeDocs.getOrDefault(route.namespace() + "/" + route.name(), 0);
      for (int i = 0; i < route.poolNames().size(); i++) {
        if (!poolKeys.contains(route.namespace() + "/" + route.poolNames().get(i))) {
          throw new ConfigException(source, doc, "spec.backendRefs[" + i + "].name",
              "no InferencePool '" + route.poolNames().get(i) + "' in namespace " + route.namespace());
        }
      }
      String prior = modelOwner.putIfAbsent(route.modelName(), route.name());
      if (prior != null) {
        throw new ConfigException(source, doc, "spec.adapter.name",
            "model '" + route.modelName() + "' is already served by LLMRoute '" + prior + "'");
      }
    }
  }
}
