package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.ObjectiveKey;
import io.llmgw.api.PoolKey;
import io.llmgw.picker.Role;
import org.junit.jupiter.api.Test;

/** The configuration indexed for the request path. */
class TopologyTest {
  static final String YAML = FileModeYaml.pool("a", "vllm", 8000) + FileModeYaml.SEPARATOR
      + FileModeYaml.pod("p1", "vllm", "127.0.0.1") + FileModeYaml.SEPARATOR
      + FileModeYaml.pod("p2", "other", "127.0.0.2") + FileModeYaml.SEPARATOR + """
          apiVersion: v1
          kind: Pod
          metadata: {name: starting, labels: {app: vllm}}
          status: {podIP: 127.0.0.3, phase: Pending}
          ---
          apiVersion: v1
          kind: Pod
          metadata: {name: elsewhere, namespace: other, labels: {app: vllm}}
          status: {podIP: 127.0.0.4, phase: Running, conditions: [{type: Ready, status: "True"}]}
          ---
          """ + FileModeYaml.route("chat", "a", "chat-lora", 5) + FileModeYaml.SEPARATOR + """
          apiVersion: inference.networking.x-k8s.io/v1alpha2
          kind: InferenceObjective
          metadata: {name: urgent}
          spec: {priority: 50, poolRef: {name: a}}
          """;

  final Topology t;

  TopologyTest() throws Exception {
    t = Topology.of(ConfigFileLoader.parse("t.yaml", YAML));
  }

  @Test
  void aPoolHasTheReadyPodsItsSelectorMatchesInItsNamespace() {
    PoolView a = t.poolsByKey().get(new PoolKey("default", "a"));
    assertThat(a.endpoints()).extracting(e -> e.address()).containsExactly("127.0.0.1:8000");
    assertThat(t.addresses()).containsExactly("127.0.0.1:8000");
    assertThat(t.targets()).hasSize(1);
  }

  @Test
  void aPodsRoleComesFromItsLabelAndAValueNamingNoRoleServesWholeRequests() throws Exception {
    String yaml = FileModeYaml.pool("a", "vllm", 8000);
    String[] roles = {"prefill", "Decode", "both", "encode", null};
    for (int i = 0; i < roles.length; i++) {
      yaml += FileModeYaml.SEPARATOR + FileModeYaml.pod("p" + i, "vllm", "127.0.0." + (i + 1), roles[i]);
    }
    Topology roled = Topology.of(ConfigFileLoader.parse("roles.yaml", yaml));
    assertThat(roled.poolsByKey().get(new PoolKey("default", "a")).endpoints()).extracting(e -> e.role())
        .containsExactly(Role.PREFILL, Role.DECODE, Role.BOTH, Role.BOTH, Role.BOTH);
  }

  @Test
  void routesAreFoundByModelWithTheirPoolsResolved() {
    RouteView chat = t.routesByModel().get("chat-lora");
    assertThat(chat.key().toString()).isEqualTo("default/chat");
    assertThat(chat.pools()).extracting(PoolView::key).containsExactly(new PoolKey("default", "a"));
  }

  @Test
  void aNamedObjectiveOfTheRoutesPoolSetsThePriorityAndAnUnknownNameFindsNone() {
    RouteView chat = t.routesByModel().get("chat-lora");
    assertThat(t.objectivesByKey()).containsKey(new ObjectiveKey("default", "urgent"));
    assertThat(t.priority(chat, t.objective(chat, "urgent"))).isEqualTo(50);
    assertThat(t.objective(chat, "nope")).isNull();
    assertThat(t.objective(chat, null)).isNull();
    assertThat(t.priority(chat, null)).isEqualTo(5);
  }

  @Test
  void routesComeFromLlmRoutesThenRewritesByPrecedenceThenAnyModelAndAPoolNoRouteNamesIsRouteless() throws Exception {
    String rewrite = """
        apiVersion: llm-d.ai/v1alpha2
        kind: InferenceModelRewrite
        metadata: {name: %s}
        spec:
          poolRef: {name: %s}
          rules:
          - matches: [{model: {value: m}}]
            targets: [{modelRewrite: %s-exact}]
          - targets: [{modelRewrite: %s-any}]
        """;
    String yaml = FileModeYaml.pool("a", "vllm", 8000) + FileModeYaml.SEPARATOR + FileModeYaml.pool("b", "x", 8000)
        + FileModeYaml.SEPARATOR + FileModeYaml.route("chat", "a", "chat-lora", 5) + FileModeYaml.SEPARATOR
        + rewrite.formatted("first", "b", "first", "first") + FileModeYaml.SEPARATOR
        + rewrite.formatted("second", "b", "second", "second");
    Topology w = Topology.of(ConfigFileLoader.parse("w.yaml", yaml));
    assertThat(w.route("chat-lora").key().name()).isEqualTo("chat");
    assertThat(w.route("m").route().adapter().targets().getFirst().name()).as("the older rewrite").isEqualTo(
        "first-exact");
    assertThat(w.route("anything").route().adapter().targets().getFirst().name()).isEqualTo("first-any");
    assertThat(w.routelessPools()).extracting(PoolView::key).containsExactly(new PoolKey("default", "b"));
    assertThat(t.routelessPools()).isEmpty();
    assertThat(t.route("anything")).isNull();
  }
}
