package io.llmgw.api;

/** Names one InferenceObjective: its namespace and name. */
public record ObjectiveKey(String namespace, String name) {
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
