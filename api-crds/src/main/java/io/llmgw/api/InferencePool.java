package io.llmgw.api;

import java.util.List;
import java.util.Map;

/**
 * {@code inference.networking.k8s.io/v1 InferencePool}: the pods (by label selector) and ports of one model server pool.
 *
 * @param adaptersResolvedByServer the pods load an adapter they were never told of when a request names it (vLLM's
 *     LoRA resolver plugins), so the EPP routes an adapter no pod lists instead of answering 503; set by the
 *     {@value #ADAPTERS_RESOLVED_BY_SERVER} annotation, since upstream's schema has no field for it
 * @param capacity what the capacity planner may do with the pool (its {@code llmgw.io/} annotations)
 */
public record InferencePool(String namespace, String name, Map<String, String> selector, List<Integer> targetPorts,
    boolean adaptersResolvedByServer, PoolCapacity capacity) {
  public static final String ADAPTERS_RESOLVED_BY_SERVER = "inference.x-k8s.io/adapters-resolved-by-server";

  public InferencePool {
    selector = Map.copyOf(selector);
    targetPorts = List.copyOf(targetPorts);
    capacity = capacity != null ? capacity : PoolCapacity.UNDECLARED;
  }

  public InferencePool(String namespace, String name, Map<String, String> selector, List<Integer> targetPorts) {
    this(namespace, name, selector, targetPorts, false, PoolCapacity.UNDECLARED);
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
