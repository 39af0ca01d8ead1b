package io.llmgw.api;

import java.util.List;

/**
 * Writes file-mode documents for generated configurations (tests, load runs, the quickstart), so the YAML shape lives
 * in one place next to the loader that reads it. Join documents with {@link #SEPARATOR}.
 */
public final class FileModeYaml {
  public static final String SEPARATOR = "---\n";

  private FileModeYaml() {}

  /** A pool selecting pods labelled {@code app=<app>} on one target port. */
  public static String pool(String name, String app, int port) {
    return """
        apiVersion: %s
        kind: InferencePool
        metadata: {name: %s}
        spec: {selector: {matchLabels: {app: %s}}, targetPorts: [{number: %d}]}
        """.formatted(ConfigFileLoader.POOL_API, name, app, port);
  }

  /** A running, ready pod labelled {@code app=<app>}. */
  public static String pod(String name, String app, String ip) {
    return pod(name, app, ip, null);
  }

  /** As {@link #pod(String, String, String)}, labelled with its role in disaggregated serving (null: none). */
  public static String pod(String name, String app, String ip, String role) {
    String roleLabel = role == null ? "" : ", llm-d.ai/role: " + role;
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, labels: {app: %s%s}}
        status: {podIP: %s, phase: Running, conditions: [{type: Ready, status: "True"}]}
        """.formatted(name, app, roleLabel, ip);
  }

  /**
   * Running, ready Pods named {@code prefix-0, prefix-1, …} labelled {@code app}, one per {@code ip:port} address,
   * each document preceded by a separator (to append after other documents).
   */
  public static String pods(String prefix, String app, List<String> addresses) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < addresses.size(); i++) {
      String a = addresses.get(i);
      out.append(SEPARATOR).append(pod(prefix + "-" + i, app, a.substring(0, a.lastIndexOf(':'))));
    }
    return out.toString();
  }

  /** A route serving {@code model} (a base model or an adapter) from one pool. */
  public static String route(String name, String pool, String model, int priority) {
    return """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: %s}
        spec: {backendRefs: [{name: %s}], adapter: {name: "%s", priority: %d}}
        """.formatted(name, pool, model, priority);
  }

  /** A route serving {@code model} through one target adapter that is loaded on demand from {@code source}. */
  public static String loadableRoute(String name, String pool, String model, String target, String source) {
    return """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: %s}
        spec:
          backendRefs: [{name: %s}]
          adapter: {name: "%s", targets: [{name: "%s", source: "%s"}]}
        """.formatted(name, pool, model, target, source);
  }
}
