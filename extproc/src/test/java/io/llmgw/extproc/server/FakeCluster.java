package io.llmgw.extproc.server;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.llmgw.api.crd.RouteStatus;
import io.llmgw.extproc.control.cluster.Kinds;
import java.util.List;
import java.util.Map;

/** Writes our kinds and pods into one namespace of the fabric8 mock API server, as kubectl would. */
final class FakeCluster {
  final KubernetesClient client;
  final String namespace;

  FakeCluster(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  void pool(String name, String app, int port) {
    apply(Kinds.POOL, """
        apiVersion: inference.networking.k8s.io/v1
        kind: InferencePool
        metadata: {name: %s}
        spec: {selector: {matchLabels: {app: %s}}, targetPorts: [{number: %d}]}
        """.formatted(name, app, port));
  }

  void route(String name, String pool, String model, int priority) {
    apply(Kinds.ROUTE, """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: %s}
        spec: {backendRefs: [{name: %s}], adapter: {name: "%s", priority: %d}}
        """.formatted(name, pool, model, priority));
  }

  void objective(String name, String pool, int priority) {
    apply(Kinds.OBJECTIVE, """
        apiVersion: inference.networking.x-k8s.io/v1alpha2
        kind: InferenceObjective
        metadata: {name: %s}
        spec: {priority: %d, poolRef: {name: %s}}
        """.formatted(name, priority, pool));
  }

  /** Creates or replaces any object of our kinds from YAML (no schema check: the mock server has none). */
  void apply(ResourceDefinitionContext kind, String yaml) {
    GenericKubernetesResource r = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
    r.getMetadata().setNamespace(namespace);
    var ops = client.genericKubernetesResources(kind).inNamespace(namespace);
    GenericKubernetesResource existing = ops.withName(r.getMetadata().getName()).get();
    if (existing == null) {
      ops.resource(r).create();
    } else {
      r.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
      r.setAdditionalProperty("status", existing.getAdditionalProperties().get("status"));
      ops.resource(r).update();
    }
  }

  void delete(ResourceDefinitionContext kind, String name) {
    client.genericKubernetesResources(kind).inNamespace(namespace).withName(name).delete();
  }

  void pod(String name, String app, String ip, boolean ready) {
    Pod pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace).withLabels(Map.of("app", app))
        .endMetadata().withNewStatus().withPodIP(ip).withPhase("Running")
        .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus().build();
    client.pods().inNamespace(namespace).resource(pod).createOr(existing -> existing.update());
  }

  void deletePod(String name) {
    client.pods().inNamespace(namespace).withName(name).delete();
  }

  /** The route's conditions by type, as stored in the API server. */
  Map<String, Condition> conditions(String route) {
    GenericKubernetesResource r = client.genericKubernetesResources(Kinds.ROUTE).inNamespace(namespace).withName(route)
        .get();
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    if (status == null) {
      return Map.of();
    }
    List<Condition> list = client.getKubernetesSerialization().convertValue(status, RouteStatus.class).conditions();
    return list == null ? Map.of()
        : list.stream().collect(java.util.stream.Collectors.toMap(Condition::getType, c -> c));
  }

  String resourceVersion(String route) {
    return client.genericKubernetesResources(Kinds.ROUTE).inNamespace(namespace).withName(route).get().getMetadata()
        .getResourceVersion();
  }
}
