package io.llmgw.api;

import java.util.List;

/** {@code inference.x-k8s.io/v1alpha1 LLMRoute}: one use case — the model name clients send, where it is served, how it ranks. */
public record LLMRoute(String namespace, String name, List<String> poolNames, RouteAdapter adapter) {
  public LLMRoute {
    poolNames = List.copyOf(poolNames);
  }

  public RouteKey key() {
    return new RouteKey(namespace, name);
  }

  /** The model name clients put in the request body. */
  public String modelName() {
    return adapter.name();
  }
}
