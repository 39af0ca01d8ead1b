package io.llmgw.api;

import java.util.List;
import java.util.Map;

/** {@code inference.networking.k8s.io/v1 InferencePool}: the pods (by label selector) and ports of one model server pool. */
public record InferencePool(String namespace, String name, Map<String, String> selector, List<Integer> targetPorts) {
  public InferencePool {
    selector = Map.copyOf(selector);
    targetPorts = List.copyOf(targetPorts);
  }

  public PoolKey key() {
    return new PoolKey(namespace, name);
  }

  /** True when every selector label is present on the pod with the same value (Kubernetes matchLabels). */
  public boolean selects(PodInfo pod) {
    if (!pod.namespace().equals(namespace)) {
      return false;
    }
    for (var e : selector.entrySet()) {
      if (!e.getValue().equals(pod.labels().get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
