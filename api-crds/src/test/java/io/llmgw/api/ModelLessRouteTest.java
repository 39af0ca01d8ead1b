package io.llmgw.api;

import static io.llmgw.api.ConfigFileLoaderTest.POOL;
import static io.llmgw.api.ConfigFileLoaderTest.docs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ModelLessRouteTest {
  static final String POOL_B = POOL.replace("pool-a", "pool-b");
  static final String ROUTE = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: summarize}
      spec:
        backendRefs: [{name: pool-a}, {name: pool-b}]
        adapter:
          name: summarize
          priority: -1
          objectiveFallback: Shed
          objectives:
            - type: TimeToFirstToken
              latency: {value: 2s}
          variants:
            - {name: summarize-lora, pool: pool-a, accuracy: 0.81, costPer1kTokens: 0.2, source: "hf://o/summarize"}
            - {name: big-model, pool: pool-b, accuracy: 0.93, costPer1kTokens: 1.5}
          requirements: {maxLatency: 3s, minAccuracy: 0.8}
      """;

  @Test
  void variantsRequirementsAndFallbackAreRead() throws Exception {
    LLMRoute r = ConfigFileLoader.parse("f.yaml", docs(POOL, POOL_B, ROUTE)).routes().getFirst();
    RouteAdapter a = r.adapter();
    assertThat(a.modelLess()).isTrue();
    assertThat(a.objectiveFallback()).isEqualTo(ObjectiveFallback.SHED);
    assertThat(a.variants()).containsExactly(
        new Variant("summarize-lora", "pool-a", 0.81, 0.2, "hf://o/summarize"),
        new Variant("big-model", "pool-b", 0.93, 1.5, null));
    assertThat(a.requirements()).isEqualTo(new Requirements(Duration.ofSeconds(3), 0.8, Double.POSITIVE_INFINITY));
    assertThat(a.objective(Objective.TTFT).quantile()).isEqualTo(0.99);
    assertThat(a.objective(Objective.TPOT)).isNull();
  }

  @Test
  void garbageIsRejectedWithTheFieldAtFault() {
    expect(ROUTE.replace("pool: pool-b", "pool: pool-c"), "spec.adapter.variants[1].pool");
    expect(ROUTE.replace("accuracy: 0.93", "accuracy: 1.5"), "spec.adapter.variants[1].accuracy");
    expect(ROUTE.replace("accuracy: 0.93, ", ""), "spec.adapter.variants[1].accuracy");
    expect(ROUTE.replace("costPer1kTokens: 1.5", "costPer1kTokens: cheap"), "spec.adapter.variants[1].costPer1kTokens");
    expect(ROUTE.replace("maxLatency: 3s", "maxLatency: fast"), "spec.adapter.requirements.maxLatency");
    expect(ROUTE.replace("minAccuracy: 0.8", "minAcc: 0.8"), "spec.adapter.requirements.minAcc");
    expect(ROUTE.replace("objectiveFallback: Shed", "objectiveFallback: Drop"), "spec.adapter.objectiveFallback");
    expect(ROUTE.replace("priority: -1", "priority: 5"), "spec.adapter.objectiveFallback");
    expect(ROUTE.replace("name: big-model, pool: pool-b", "name: summarize-lora, pool: pool-a"),
        "spec.adapter.variants[1].name");
    expect(ROUTE.replace("    variants:", "    targets: [{name: t}]\n    variants:"),
        "spec.adapter.variants");
  }

  @Test
  void requirementsNeedVariants() {
    String noVariants = ROUTE.replaceAll("(?s)    variants:.*?(?=    requirements)", "");
    expect(noVariants, "spec.adapter.requirements");
  }

  private static void expect(String route, String field) {
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, POOL_B, route)))
        .isInstanceOfSatisfying(ConfigException.class,
            e -> assertThat(e.field()).as(e.getMessage()).isEqualTo(field));
  }
}
