package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.llmgw.api.crd.RouteStatus;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings each LLMRoute's status conditions in line with the control loop's verdict and its pools' health, writing only
 * routes whose conditions changed. Run by the leader only, from one thread.
 */
final class RouteStatusWriter {
  private static final Logger LOG = LoggerFactory.getLogger(RouteStatusWriter.class);

  private final KubernetesClient client;
  private final ClusterStore store;
  private final Function<RouteVerdict, RouteConditions.Endpoints> endpoints;
  private final Clock clock;
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  /** Route → the resourceVersion our last write replaced; until the informer shows a newer one, do not write again. */
  private final Map<Kinds.Key, String> writtenOver = new ConcurrentHashMap<>();

  RouteStatusWriter(KubernetesClient client, ClusterStore store,
      Function<RouteVerdict, RouteConditions.Endpoints> endpoints, Clock clock) {
    this.client = client;
    this.store = store;
    this.endpoints = endpoints;
    this.clock = clock;
  }

  /** Returns how many routes were written. */
  int writeChanged() {
    int written = 0;
    List<RouteVerdict> verdicts = store.verdicts();
    for (RouteVerdict v : verdicts) {
      if (store.ownsStatusOf(v) && write(v)) {
        written++;
      }
    }
    writtenOver.keySet().retainAll(verdicts.stream().map(v -> Kinds.key(v.namespace(), v.name())).toList());
    return written;
  }

  private boolean write(RouteVerdict v) {
    GenericKubernetesResource seen = store.route(v.namespace(), v.name());
    if (seen == null) {
      return false;
    }
    Kinds.Key key = Kinds.key(v.namespace(), v.name());
    String version = seen.getMetadata().getResourceVersion();
    if (version != null && version.equals(writtenOver.get(key))) {
      return false;
    }
    List<Condition> next = RouteConditions.merge(RouteConditions.desired(v, endpoints.apply(v)), conditions(seen),
        clock.instant());
    if (next == null) {
      return false;
    }
    GenericKubernetesResource copy = serialization.clone(seen);
    copy.setAdditionalProperty("status", new RouteStatus(next));
    try {
      client.genericKubernetesResources(Kinds.ROUTE).inNamespace(v.namespace()).resource(copy).updateStatus();
      writtenOver.put(key, version == null ? "" : version);
      LOG.info("LLMRoute {} status: {}", key, summary(next));
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        LOG.debug("LLMRoute {} changed while writing its status ({}); next check retries", key, e.getCode());
      } else {
        LOG.warn("cannot write the status of LLMRoute {}: {}", key, e.getMessage());
      }
      return false;
    }
  }

  private List<Condition> conditions(GenericKubernetesResource route) {
    Object status = route.getAdditionalProperties().get("status");
    if (status == null) {
      return null;
    }
    try {
      return serialization.convertValue(status, RouteStatus.class).conditions();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String summary(List<Condition> conditions) {
    StringBuilder sb = new StringBuilder();
    for (Condition c : conditions) {
      sb.append(sb.isEmpty() ? "" : ", ").append(c.getType()).append('=').append(c.getStatus()).append(" (")
          .append(c.getReason()).append(')');
    }
    return sb.toString();
  }
}
