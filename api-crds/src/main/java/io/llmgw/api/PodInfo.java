package io.llmgw.api;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

import java.util.Map;

/**
 * The part of a {@code v1 Pod} the gateway reads; in file mode it is declared, in a cluster it is watched.
 *
 * @param activePorts the pod's {@code llm-d.ai/active-ports} annotation (or GIE's older name) as written, naming which
 *     of its pool's target ports serve now (data-parallel ranks); null when the pod has none: every target port serves
 * @param readyAfter how long the pod took from its creation to its Ready condition, the pool's load time as the capacity
 *     planner measures it; null when the pod does not say (not ready, or no timestamps)
 */
public record PodInfo(String namespace, String name, Map<String, String> labels, String podIP, String phase,
    boolean ready, String activePorts, Duration readyAfter) {
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
    this(namespace, name, labels, podIP, phase, ready, null, null);
  }

  public PodInfo(String namespace, String name, Map<String, String> labels, String podIP, String phase,
      boolean ready, String activePorts) {
    this(namespace, name, labels, podIP, phase, ready, activePorts, null);
  }

  /**
   * From the pod's {@code metadata.creationTimestamp} to its Ready condition's {@code lastTransitionTime} (RFC 3339), or
   * null when either is missing or unreadable, or the span is negative or longer than a day (a condition that flapped
   * long after the start says nothing about loading).
   */
  public static Duration readyAfter(String created, String readySince) {
    if (created == null || readySince == null) {
      return null;
    }
    try {
      Duration d = Duration.between(Instant.parse(created), Instant.parse(readySince));
      return d.isNegative() || d.compareTo(Duration.ofDays(1)) > 0 ? null : d;
    } catch (DateTimeParseException e) {
      return null;
    }
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
