package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why a kind cannot be listed or watched, told once per distinct problem while the informer retries with backoff: a
 * CRD that is not installed, RBAC that does not allow it, or an API server out of reach — never a crash loop.
 */
final class WatchProblems {
  private static final Logger LOG = LoggerFactory.getLogger(WatchProblems.class);
  /** Kinds the EPP works without; their absence is a warning, not a reason to stay unready. */
  private static final Set<String> OPTIONAL = Set.of("InferenceObjective");

  private final String namespace;
  private final String apiServer;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  WatchProblems(String namespace, String apiServer) {
    this.namespace = namespace;
    this.apiServer = apiServer;
  }

  void report(String kind, Throwable thrown) {
    Throwable error = thrown;
    while (!(error instanceof KubernetesClientException) && error.getCause() != null) {
      error = error.getCause();
    }
    String problem = error instanceof KubernetesClientException k && k.getCode() == 404
        ? "the " + kind + " CRD is not installed (kubectl apply -f deploy/crds)"
        : error instanceof KubernetesClientException k && k.getCode() == 403
            ? "not allowed to list/watch " + kind + " objects (check the EPP's RBAC)"
        : "cannot reach the Kubernetes API at " + apiServer + ": " + rootMessage(thrown);
    if (reported.add(kind + ":" + problem)) {
      if (OPTIONAL.contains(kind)) {
        LOG.warn("{}; requests' x-gateway-inference-objective headers are ignored until it is; retrying", problem);
      } else {
        LOG.error("cannot watch {} in namespace {}: {}; retrying, not ready until then", kind, namespace, problem);
      }
    }
  }

  /** The kind is readable (again); a later problem is worth a new line. */
  void cleared(String kind) {
    if (reported.removeIf(p -> p.startsWith(kind + ":"))) {
      LOG.info("{} objects are readable again", kind);
    }
  }

  private static String rootMessage(Throwable t) {
    String message = t.toString();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null) {
        message = c.getClass().getSimpleName() + ": " + c.getMessage();
      }
    }
    return message;
  }
}
