package io.llmgw.api;

import static io.llmgw.api.ConfigFileLoaderTest.POOL;
import static io.llmgw.api.ConfigFileLoaderTest.ROUTE;
import static io.llmgw.api.ConfigFileLoaderTest.docs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** llm-d's InferenceModelRewrite and InferenceObjective under llm-d.ai, read from a gateway file as llm-d writes them. */
class ModelRewriteTest {
  /** llm-d's hermetic test data writes its rewrite so (no weight, no match type). */
  static final String REWRITE = """
      apiVersion: llm-d.ai/v1alpha2
      kind: InferenceModelRewrite
      metadata: {name: rewrite-test, namespace: default}
      spec:
        poolRef: {name: pool-a}
        rules:
        - matches:
          - model: {value: model-to-be-rewritten}
          targets:
          - modelRewrite: rewritten-model
        - targets:
          - {modelRewrite: base-a, weight: 90}
          - {modelRewrite: base-b, weight: 10}
      """;
  static final String OBJECTIVE = """
      apiVersion: llm-d.ai/v1alpha2
      kind: InferenceObjective
      metadata: {name: direct-model, namespace: default}
      spec:
        priority: 2
        poolRef: {name: pool-a}
      """;

  @Test
  void aRewriteBecomesOneRoutePerMatchedModelAndOneForAnyModel() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, REWRITE, OBJECTIVE));
    ModelRewrite w = c.rewrites().getFirst();
    assertThat(w.pool()).isEqualTo(new PoolKey("default", "pool-a"));
    assertThat(w.routes()).extracting(LLMRoute::modelName).containsExactly("model-to-be-rewritten",
        ModelRewrite.ANY_MODEL);
    assertThat(w.routes().getFirst().adapter().targets()).containsExactly(
        new AdapterTarget("rewritten-model", 1, null));
    assertThat(w.routes().get(1).adapter().targets()).extracting(AdapterTarget::weight).containsExactly(90, 10);
    assertThat(c.objectives()).singleElement().satisfies(o -> assertThat(o.priority()).isEqualTo(2));
  }

  @Test
  void theVersionLlmdFirstDocumentedIsReadToo() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, REWRITE.replace("v1alpha2", "v1alpha1"),
        OBJECTIVE.replace("v1alpha2", "v1alpha1")));
    assertThat(c.rewrites()).hasSize(1);
    assertThat(c.objectives()).hasSize(1);
  }

  @Test
  void garbageIsRefusedNamingTheField() {
    String[][] cases = {
        {REWRITE.replace("llm-d.ai/v1alpha2", "llm-d.ai/v9"), "apiVersion", "'llm-d.ai/v9' is not supported"},
        {REWRITE.replace("{value: model-to-be-rewritten}", "{type: RegularExpression, value: m.*}"),
            "spec.rules[0].matches[0].model.type", "Exact only"},
        {REWRITE.replace("{modelRewrite: base-b, weight: 10}", "{modelRewrite: base-b}"), "spec.rules[1].targets",
            "must be set on every target"},
        {REWRITE.replace("weight: 90", "weight: 0"), "spec.rules[1].targets[0].weight", ""},
        {REWRITE.replace("{modelRewrite: base-b, weight: 10}", "{modelRewrite: base-a, weight: 10}"),
            "spec.rules[1].targets[1].modelRewrite", "listed twice"},
        {REWRITE.replace("poolRef: {name: pool-a}", "poolRef: {name: pool-z}"), "spec.poolRef.name",
            "no InferencePool 'pool-z'"},
        {REWRITE.replace("modelRewrite: rewritten-model", "modelRewrite: \"\""),
            "spec.rules[0].targets[0].modelRewrite",
            "is required"},
        {REWRITE.replace("- modelRewrite: rewritten-model", "- {modelRewrite: rewritten-model, headers: {}}"),
            "spec.rules[0].targets[0].headers", "unknown field"},
        {REWRITE.replace("model-to-be-rewritten", "sql-lora"), "spec.rules[0].matches[0]",
            "already served by LLMRoute 'sql'"},
        {OBJECTIVE.replace("priority: 2", "targetModels: [{name: m, weight: 100}]"), "spec.targetModels",
            "InferenceModelRewrite"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, c[0]))).as(c[1])
          .isInstanceOf(ConfigException.class).hasMessageContaining("field " + c[1] + " ")
          .hasMessageContaining(c[2]);
    }
  }

  @Test
  void changesToRewritesAreReportedLikeOtherKinds() throws Exception {
    GatewayConfig before = ConfigFileLoader.parse("f.yaml", docs(POOL, REWRITE));
    GatewayConfig after = ConfigFileLoader.parse("f.yaml", docs(POOL, REWRITE.replace("weight: 90", "weight: 50")));
    assertThat(ConfigChanges.between(before, after).describe()).contains("rewrites ~default/rewrite-test");
  }
}
