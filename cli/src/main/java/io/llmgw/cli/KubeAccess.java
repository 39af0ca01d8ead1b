package io.llmgw.cli;

import java.io.File;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether cluster mode has a Kubernetes API to talk to, decided before any client is made: in a pod (the service
 * account's environment), a kubeconfig ({@code KUBECONFIG} or {@code ~/.kube/config}), or a master named outright.
 * Without one, fabric8 would fall back to {@code https://kubernetes.default.svc}, a name lookup outside this machine
 * that fails only after its timeouts: cluster mode says so at once instead.
 */
final class KubeAccess {
  private KubeAccess() {}

  /** Null when an API is configured; else what is missing and what to do, in one sentence. */
  static String problem(Map<String, String> env, Map<String, String> properties, Path home) {
    if (env.containsKey("KUBERNETES_SERVICE_HOST") || env.containsKey("KUBERNETES_MASTER")
        || properties.containsKey("kubernetes.master")) {
      return null;
    }
    String kubeconfig = properties.getOrDefault("kubeconfig", env.get("KUBECONFIG"));
    if (kubeconfig != null) {
      for (String f : kubeconfig.split(File.pathSeparator)) {
        if (!f.isBlank() && Files.isRegularFile(Path.of(f))) {
          return null;
        }
      }
      return "--kubernetes needs a Kubernetes API, and KUBECONFIG names no readable file (" + kubeconfig + ")";
    }
    if (home != null && Files.isRegularFile(home.resolve(".kube").resolve("config"))) {
      return null;
    }
    return "--kubernetes needs a Kubernetes API: this is not a pod (KUBERNETES_SERVICE_HOST is unset) and there is no "
        + "kubeconfig (KUBECONFIG unset, no ~/.kube/config); point KUBECONFIG at a cluster, or run file mode with "
        + "--config FILE";
  }
}
