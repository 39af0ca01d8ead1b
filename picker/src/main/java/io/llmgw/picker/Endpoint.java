package io.llmgw.picker;

import java.util.Map;
import java.util.Set;

/**
 * One model server: a pod's address and one of its pool's target ports, its role in disaggregated serving, and the
 * pod's labels (for label selectors).
 */
public record Endpoint(String pool, String podName, String ip, int port, String address, Role role,
    Map<String, String> labels) {
  public Endpoint {
    labels = Map.copyOf(labels);
  }

  public Endpoint(String pool, String podName, String ip, int port) {
    this(pool, podName, ip, port, Role.BOTH);
  }

  public Endpoint(String pool, String podName, String ip, int port, Role role) {
    this(pool, podName, ip, port, role, Map.of());
  }

  public Endpoint(String pool, String podName, String ip, int port, Role role, Map<String, String> labels) {
    this(pool, podName, ip, port, (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + port, role, labels);
  }

  /**
   * Whether a subset of allowed endpoints lets this one through: it names this {@code ip:port}, or the pod's IP alone
   * (any of its ports: a pod serving data-parallel ranks on several), as GIE's subset hints and conformance hooks do.
   */
  public boolean allowedBy(Set<String> subset) {
    return subset.contains(address) || subset.contains(ip);
  }
}
