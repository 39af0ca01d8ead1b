package io.llmgw.api;

import java.util.Map;

/** The part of a {@code v1 Pod} the gateway reads; in file mode it is declared, in a cluster it is watched. */
public record PodInfo(String namespace, String name, Map<String, String> labels, String podIP, String phase,
    boolean ready) {
  public static final String ENGINE_TYPE_LABEL = "inference.networking.k8s.io/engine-type";
  /** llm-d's name for the same label (since llm-d-router v0.9), read first. */
  public static final String LLMD_ENGINE_TYPE_LABEL = "llm-d.ai/engine-type";

  public PodInfo {
    labels = Map.copyOf(labels);
  }

  /** Only running, ready pods with an address take traffic. */
  public boolean routable() {
    return ready && "Running".equals(phase) && podIP != null && !podIP.isBlank();
  }

  public String engineType() {
    return labels.getOrDefault(LLMD_ENGINE_TYPE_LABEL, labels.getOrDefault(ENGINE_TYPE_LABEL, "vllm"));
  }
}
