package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.llmgw.api.ConfigException;

/** One object as last seen in the cluster: the raw resource and either its parsed record or why it is invalid. */
record Seen<T>(GenericKubernetesResource raw, T value, ConfigException problem) {
  boolean valid() {
    return value != null;
  }

  String creationTimestamp() {
    String t = raw.getMetadata().getCreationTimestamp();
    return t == null ? "" : t;
  }

  long generation() {
    Long g = raw.getMetadata().getGeneration();
    return g == null ? 0 : g;
  }
}
