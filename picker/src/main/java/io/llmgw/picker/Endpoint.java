package io.llmgw.picker;

/** One model server: a pod's address and one of its pool's target ports, and its role in disaggregated serving. */
public record Endpoint(String pool, String podName, String ip, int port, String address, Role role) {
  public Endpoint(String pool, String podName, String ip, int port) {
    this(pool, podName, ip, port, Role.BOTH);
  }

  public Endpoint(String pool, String podName, String ip, int port, Role role) {
    this(pool, podName, ip, port, (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + port, role);
  }
}
