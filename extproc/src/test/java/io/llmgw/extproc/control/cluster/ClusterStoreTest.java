package io.llmgw.extproc.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.TenantBudget;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ClusterStoreTest {
  static final KubernetesSerialization K8S = new KubernetesSerialization();

  static GenericKubernetesResource route(String name, String model, String created) {
    return K8S.unmarshal("""
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: %s, namespace: ns, creationTimestamp: "%s", generation: 2}
        spec: {backendRefs: [{name: pool}], adapter: {name: %s}}
        """.formatted(name, created, model), GenericKubernetesResource.class);
  }

  static Pod pod(boolean ready, boolean terminating) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName("p").withNamespace("ns").withLabels(Map.of("app", "x"))
        .endMetadata().withNewStatus().withPodIP("10.0.0.1").withPhase("Running").addNewCondition().withType("Ready")
        .withStatus(ready ? "True" : "False").endCondition().endStatus();
    if (terminating) {
      b.editMetadata().withDeletionTimestamp("2026-11-22T10:00:00Z").endMetadata();
    }
    return b.build();
  }

  @Test
  void theOlderOfTwoRoutesForOneModelKeepsItAndTheNewerIsToldWhy() {
    ClusterStore store = new ClusterStore(false);
    store.putRoute(route("newer", "chat", "2026-11-22T10:00:00Z"));
    store.putRoute(route("older", "chat", "2026-11-21T10:00:00Z"));
    assertThat(store.config().routes()).extracting(LLMRoute::name).containsExactly("older");
    RouteVerdict newer = store.verdicts().stream().filter(v -> v.name().equals("newer")).findFirst().orElseThrow();
    assertThat(newer.rejectReason()).isEqualTo("ModelConflict");
    assertThat(newer.problem()).contains("'older'");
    assertThat(newer.generation()).isEqualTo(2);

    store.removeRoute(route("older", "chat", "2026-11-21T10:00:00Z"));
    assertThat(store.config().routes()).extracting(LLMRoute::name).containsExactly("newer");
  }

  static GenericKubernetesResource llmd(String kind, String name, String created, String spec) {
    return K8S.unmarshal("""
        apiVersion: llm-d.ai/v1alpha2
        kind: %s
        metadata: {name: %s, namespace: ns, creationTimestamp: "%s"}
        spec: %s
        """.formatted(kind, name, created, spec), GenericKubernetesResource.class);
  }

  @Test
  void llmdsRewritesComeOldestFirstAndAGieObjectiveKeepsASharedName() {
    ClusterStore store = new ClusterStore(false);
    String rule = "{poolRef: {name: pool}, rules: [{targets: [{modelRewrite: %s}]}]}";
    store.putRewrite(llmd("InferenceModelRewrite", "newer", "2026-11-22T10:00:00Z", rule.formatted("b")));
    store.putRewrite(llmd("InferenceModelRewrite", "older", "2026-11-21T10:00:00Z", rule.formatted("a")));
    store.putRewrite(llmd("InferenceModelRewrite", "bad", "2026-11-20T10:00:00Z", "{poolRef: {name: pool}}"));
    assertThat(store.config().rewrites()).extracting(w -> w.name()).containsExactly("older", "newer");

    store.putObjective(K8S.unmarshal("""
        apiVersion: inference.networking.x-k8s.io/v1alpha2
        kind: InferenceObjective
        metadata: {name: shared, namespace: ns}
        spec: {priority: 7, poolRef: {name: pool}}
        """, GenericKubernetesResource.class));
    store.putLlmdObjective(llmd("InferenceObjective", "shared", "", "{priority: 1, poolRef: {name: pool}}"));
    store.putLlmdObjective(llmd("InferenceObjective", "own", "", "{priority: 3, poolRef: {name: pool}}"));
    assertThat(store.config().objectives()).extracting(o -> o.name() + "=" + o.priority())
        .containsExactlyInAnyOrder("shared=7", "own=3");
  }

  @Test
  void aPodsActivePortsAnnotationIsReadUnderLlmdsNameFirstThenGies() {
    Pod both = pod(true, false);
    both.getMetadata()
        .setAnnotations(Map.of("llm-d.ai/active-ports", "3000", "inference.networking.k8s.io/active-ports",
            "3002"));
    assertThat(ClusterStore.podInfo(both).activePorts()).isEqualTo("3000");
    Pod legacy = pod(true, false);
    legacy.getMetadata().setAnnotations(Map.of("inference.networking.k8s.io/active-ports", "3002,3004"));
    assertThat(ClusterStore.podInfo(legacy).activePorts()).isEqualTo("3002,3004");
    assertThat(ClusterStore.podInfo(pod(true, false)).activePorts()).isNull();
  }

  @Test
  void anInvalidRouteIsLeftOutAndItsFieldNamed() {
    ClusterStore store = new ClusterStore(false);
    GenericKubernetesResource bad = route("bad", "chat", "2026-11-22T10:00:00Z");
    ((Map<String, Object>) ((Map<String, Object>) bad.getAdditionalProperties().get("spec")).get("adapter"))
        .put("priority", 5_000_000);
    store.putRoute(bad);
    assertThat(store.config().routes()).isEmpty();
    assertThat(store.verdicts().getFirst().problem()).isEqualTo("spec.adapter.priority: 5000000 is out of "
        + "range (-1000000..1000000)");
  }

  /**
   * Issue 53: a file naming a missing route is refused, but a cluster's objects come one by one. The budget is kept and
   * the route it names in vain said once in an ERROR line, again only after it was mended and broken anew.
   */
  @Test
  void aBudgetNamingAMissingRouteIsKeptAndSaidOnceUntilTheRouteExists() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger(BudgetRoutes.class);
    logs.start();
    logger.addAppender(logs);
    try {
      ClusterStore store = new ClusterStore(false);
      store.putRoute(route("chat", "chat-model", "2026-11-22T10:00:00Z"));
      store.putBudget(K8S.unmarshal("""
          apiVersion: inference.x-k8s.io/v1alpha1
          kind: TenantBudget
          metadata: {name: team-a, namespace: ns}
          spec: {routes: [chat, sql]}
          """, GenericKubernetesResource.class));
      assertThat(store.config().budgets()).extracting(TenantBudget::name).containsExactly("team-a");
      store.config();
      assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("TenantBudget ns/team-a "
          + "names LLMRoute 'sql', which namespace ns does not have: create the route or take it out of the budget's "
          + "spec.routes");
      assertThat(logs.list.getFirst().getLevel()).isEqualTo(Level.ERROR);

      store.putRoute(route("sql", "sql-model", "2026-11-22T10:00:00Z"));
      store.config();
      store.removeRoute(route("sql", "sql-model", "2026-11-22T10:00:00Z"));
      store.config();
      assertThat(logs.list).as("mended, then broken anew").hasSize(2);
    } finally {
      logger.detachAppender(logs);
    }
  }

  @Test
  void aTerminatingOrUnreadyPodIsNotRoutable() {
    assertThat(ClusterStore.podInfo(pod(true, false)).routable()).isTrue();
    assertThat(ClusterStore.podInfo(pod(false, false)).routable()).isFalse();
    assertThat(ClusterStore.podInfo(pod(true, true)).routable()).as("deletion requested").isFalse();
  }
}
