package io.llmgw.api;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Checks that span documents: unique names per kind, routes and objectives that name existing pools, one route per model
 * name.
 */
final class CrossChecks {
  private CrossChecks() {}

  static void check(String source, List<Located<InferencePool>> pools, List<Located<LLMRoute>> routes,
      List<Located<InferenceObjective>> objectives, List<Located<PodInfo>> pods) throws ConfigException {
    unique(source, "InferencePool", pools, InferencePool::key);
    unique(source, "Pod", pods, p -> p.namespace() + "/" + p.name());
    unique(source, "LLMRoute", routes, LLMRoute::key);
    unique(source, "InferenceObjective", objectives, InferenceObjective::key);
    Set<PoolKey> poolKeys = pools.stream().map(p -> p.value().key()).collect(Collectors.toSet());
    for (Located<InferenceObjective> located : objectives) {
      InferenceObjective o = located.value();
      if (!poolKeys.contains(o.pool())) {
        throw new ConfigException(source, located.document(), "spec.poolRef.name",
            "no InferencePool '" + o.poolName() + "' in namespace " + o.namespace());
      }
    }
    Map<String, String> modelOwner = new HashMap<>();
    for (Located<LLMRoute> located : routes) {
      LLMRoute route = located.value();
      for (int i = 0; i < route.poolNames().size(); i++) {
        if (!poolKeys.contains(route.key().pool(route.poolNames().get(i)))) {
          throw new ConfigException(source, located.document(), "spec.backendRefs[" + i + "].name",
              "no InferencePool '" + route.poolNames().get(i) + "' in namespace " + route.namespace());
        }
      }
      String prior = modelOwner.putIfAbsent(route.modelName(), route.name());
      if (prior != null) {
        throw new ConfigException(source, located.document(), "spec.adapter.name",
            "model '" + route.modelName() + "' is already served by LLMRoute '" + prior + "'");
      }
    }
  }

  /** Tenant names are one namespace of their own (keys name them), and every route a budget names exists. */
  static void budgets(String source, List<Located<TenantBudget>> budgets, List<Located<LLMRoute>> routes)
      throws ConfigException {
    unique(source, "TenantBudget", budgets, TenantBudget::name);
    Set<RouteKey> known = routes.stream().map(r -> r.value().key()).collect(Collectors.toSet());
    for (Located<TenantBudget> located : budgets) {
      TenantBudget b = located.value();
      List<String> named = b.routes() == null ? List.of() : b.routes();
      for (int i = 0; i < named.size(); i++) {
        if (!known.contains(new RouteKey(b.namespace(), named.get(i)))) {
          throw new ConfigException(source, located.document(), "spec.routes[" + i + "]",
              "no LLMRoute '" + named.get(i) + "' in namespace " + b.namespace());
        }
      }
    }
  }

  /**
   * Every rewrite names a pool of the file, and a model it matches is not also an LLMRoute's: which of the two would
   * answer is not something a reader of the file should have to know. Among rewrites llm-d's precedence decides (the
   * earlier document is the older).
   */
  static void rewrites(String source, List<Located<ModelRewrite>> rewrites, List<Located<InferencePool>> pools,
      List<Located<LLMRoute>> routes) throws ConfigException {
    unique(source, "InferenceModelRewrite", rewrites, w -> w.namespace() + "/" + w.name());
    Set<PoolKey> poolKeys = pools.stream().map(p -> p.value().key()).collect(Collectors.toSet());
    Map<String, String> routeModels = new HashMap<>();
    routes.forEach(r -> routeModels.put(r.value().modelName(), r.value().name()));
    for (Located<ModelRewrite> located : rewrites) {
      ModelRewrite w = located.value();
      if (!poolKeys.contains(w.pool())) {
        throw new ConfigException(source, located.document(), "spec.poolRef.name",
            "no InferencePool '" + w.poolName() + "' in namespace " + w.namespace());
      }
      for (int i = 0; i < w.rules().size(); i++) {
        List<String> models = w.rules().get(i).models();
        for (int m = 0; m < models.size(); m++) {
          String owner = routeModels.get(models.get(m));
          if (owner != null) {
            throw new ConfigException(source, located.document(), "spec.rules[" + i + "].matches[" + m + "]",
                "model '" + models.get(m) + "' is already served by LLMRoute '" + owner + "'");
          }
        }
      }
    }
  }

  private static <T> void unique(String source, String kind, List<Located<T>> items, Function<T, ?> key)
      throws ConfigException {
    Map<Object, Integer> firstDocument = new HashMap<>();
    for (Located<T> item : items) {
      Integer prior = firstDocument.putIfAbsent(key.apply(item.value()), item.document());
      if (prior != null) {
        throw new ConfigException(source, item.document(), "metadata.name",
            kind + " '" + key.apply(item.value()) + "' is already declared in document " + prior);
      }
    }
  }
}
