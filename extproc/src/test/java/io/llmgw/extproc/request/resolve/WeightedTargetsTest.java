package io.llmgw.extproc.request.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.testing.TestGateway;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WeightedTargetsTest {
  static final String CANARY = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: canary}
      spec:
        backendRefs: [{name: pool}]
        adapter: {name: sql, targets: [{name: sql-v1, weight: 90}, {name: sql-v2, weight: 10, source: "hf://v2"}]}
      """;

  private static Choice resolve(TestGateway g, WeightedTargets w, Map<String, String> headers) {
    RequestContext ctx = Contexts.resolved(g, "sql", headers, null);
    return ((TargetResolver.Resolution.Chosen) w.resolve(ctx, null)).choice();
  }

  @Test
  void targetsAreDrawnByWeightAndALoadableOneKeepsItsSource() {
    Random seeded = new Random(5);
    WeightedTargets w = new WeightedTargets(() -> seeded, false);
    try (TestGateway g = new TestGateway(1, CANARY)) {
      Map<String, Integer> counts = new HashMap<>();
      for (int i = 0; i < 2_000; i++) {
        Choice c = resolve(g, w, Map.of());
        counts.merge(c.target(), 1, Integer::sum);
        assertThat(c.source()).isEqualTo(c.target().equals("sql-v2") ? "hf://v2" : null);
      }
      assertThat(counts.get("sql-v2")).isBetween(150, 250);
    }
  }

  @Test
  void aTrustedRewriteHeaderNamesOneOfTheRoutesTargets() {
    WeightedTargets w = new WeightedTargets(() -> new Random(1), true);
    try (TestGateway g = new TestGateway(1, CANARY)) {
      assertThat(resolve(g, w, Map.of(EppProtocol.MODEL_REWRITE, "sql-v2")).target()).isEqualTo("sql-v2");
    }
  }

  /** Issue 13, item 3: a client must not steer its request to another route's adapter, or mint metric labels. */
  @Test
  void item3ByDefaultTheClientsRewriteHeaderIsIgnored() {
    WeightedTargets w = new WeightedTargets(() -> new Random(1), false);
    try (TestGateway g = new TestGateway(1, CANARY)) {
      for (int i = 0; i < 50; i++) {
        assertThat(resolve(g, w, Map.of(EppProtocol.MODEL_REWRITE, "summarize-lora")).target())
            .isIn("sql-v1", "sql-v2");
      }
    }
  }

  @Test
  void item3ATrustedRewriteThatNamesNoTargetOfTheRouteIsRefusedWithoutEchoingControlCharacters() {
    WeightedTargets w = new WeightedTargets(() -> new Random(1), true);
    try (TestGateway g = new TestGateway(1, CANARY)) {
      RequestContext ctx = Contexts.resolved(g, "sql", Map.of(EppProtocol.MODEL_REWRITE, "other\nINFO forged"), null);
      assertThat(w.resolve(ctx, null)).isInstanceOfSatisfying(TargetResolver.Resolution.Refused.class, r -> {
        assertThat(r.reply().status()).isEqualTo(400);
        assertThat(r.reply().message()).contains(EppProtocol.MODEL_REWRITE, "sql-v1, sql-v2").doesNotContain("\n");
      });
    }
  }

  @Test
  void aRouteWithoutTargetsServesItsOwnName() {
    WeightedTargets w = new WeightedTargets(() -> new Random(1), false);
    try (TestGateway g = new TestGateway(1, io.llmgw.api.FileModeYaml.route("base", "pool", "base", 0))) {
      RequestContext ctx = Contexts.resolved(g, "base", Map.of(), null);
      assertThat(((TargetResolver.Resolution.Chosen) w.resolve(ctx, null)).choice().target()).isEqualTo("base");
    }
  }
}
