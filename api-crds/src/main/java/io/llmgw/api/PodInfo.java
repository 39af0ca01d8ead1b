package io.llmgw.api;

import java.util.Map;

/**
 * The part of a {@code v1 Pod} the gateway reads; in file mode it is declared, in a cluster it is watched.
 *
 * @param activePorts the pod's {@code llm-d.ai/active-ports} annotation (or GIE's older name) as written, naming which
 *     of its pool's target ports serve now (data-parallel ranks); null when the pod has none: every target port serves
 */
public record PodInfo(String namespace, String name, Map<String, String> labels, String podIP, String phase,
    boolean ready, String activePorts) {
  public static final String ENGINE_TYPE_LABEL = "inference.networking.k8s.io/engine-type";
  /** llm-d's name for the same label (since llm-d-router v0.9), read first. */
  public static final String LLMD_ENGINE_TYPE_LABEL = "llm-d.ai/engine-type";

  public static final String ACTIVE_PORTS_ANNOTATION = "llm-d.ai/active-ports";
  public static final String LEGACY_ACTIVE_PORTS_ANNOTATION = "inference.networking.k8s.io/active-ports";

  public PodInfo {
    labels = Map.copyOf(labels);
  }

  public PodInfo(String namespace, String name, Map<String, String> labels, String podIP, String phase,
      boolean ready) {
    this(namespace, name, labels, podIP, phase, ready, null);
  }

  /** The active-ports annotation among {@code annotations} (llm-d's name first), or null. */
  public static String activePortsOf(Map<String, String> annotations) {
    String v = annotations.get(ACTIVE_PORTS_ANNOTATION);
    return v != null ? v : annotations.get(LEGACY_ACTIVE_PORTS_ANNOTATION);
  }

  /** Only running, ready pods with an address take traffic. */
  public boolean routable() {
    return ready && "Running".equals(phase) && podIP != null && !podIP.isBlank();
  }

  public String engineType() {
    return labels.getOrDefault(LLMD_ENGINE_TYPE_LABEL, labels.getOrDefault(ENGINE_TYPE_LABEL, "vllm"));
  }
}
