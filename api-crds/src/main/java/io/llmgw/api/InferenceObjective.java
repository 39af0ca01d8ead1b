package io.llmgw.api;

/**
 * {@code inference.networking.x-k8s.io/v1alpha2 InferenceObjective}: a named priority for one pool, chosen per request
 * with the {@code x-gateway-inference-objective} header.
 */
public record InferenceObjective(String namespace, String name, int priority, String poolName) {
  public ObjectiveKey key() {
    return new ObjectiveKey(namespace, name);
  }

  public PoolKey pool() {
    return new PoolKey(namespace, poolName);
  }
}
