package io.llmgw.extproc.request.resolve;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.testing.TestGateway;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Model-less routes: the cheapest variant that meets the request's requirements, over two pools. */
class VariantChooserTest {
  static final String LARGE = "127.0.0.9:8000";
  static final String ROUTES = FileModeYaml.pool("large-pool", "large", TestGateway.PORT)
      + FileModeYaml.pods("large", "large", List.of(LARGE)) + FileModeYaml.SEPARATOR + """
          apiVersion: inference.x-k8s.io/v1alpha1
          kind: LLMRoute
          metadata: {name: summarize}
          spec:
            backendRefs: [{name: pool}, {name: large-pool}]
            adapter:
              name: summarize
              variants:
                - {name: summarize-lora, pool: pool, accuracy: 0.81, costPer1kTokens: 0.2, source: "hf://o/s"}
                - {name: large-base, pool: large-pool, accuracy: 0.92, costPer1kTokens: 1.5}
              requirements: {minAccuracy: 0.75}
          """;

  final TestGateway g = new TestGateway(1, ROUTES);
  final VariantChooser chooser = new VariantChooser(g.datastore(), TestGateway.settings().saturation()
      .detector(g.clock), g.parts.latency().estimator(), g.parts.adapters().loads(), g.parts.capacity().meter());

  @AfterEach
  void close() {
    g.close();
  }

  private Choice choose(Map<String, String> headers) {
    RequestContext ctx = Contexts.resolved(g, "summarize", headers, null);
    return ((TargetResolver.Resolution.Chosen) chooser.resolve(ctx, null)).choice();
  }

  @Test
  void theCheapestResidentVariantThatMeetsEverythingServes() {
    g.scrapes.report(address(1), "small-base", 0, 0.1, Set.of("summarize-lora"), 0);
    g.scrapes.report(LARGE, "large-base", 0, 0.1, Set.of(), 0);
    Choice c = choose(Map.of());
    assertThat(c.target()).isEqualTo("summarize-lora");
    assertThat(c.unmet()).isEmpty();
    assertThat(c.pools()).extracting(p -> p.key().name()).containsExactly("pool");
  }

  @Test
  void aPricierResidentVariantServesWhileTheCheaperOneIsLoadedInTheBackground() {
    g.scrapes.report(address(1), "small-base", 0, 0.1, Set.of(), 0);
    g.scrapes.report(LARGE, "large-base", 0, 0.1, Set.of(), 0);
    assertThat(choose(Map.of()).target()).isEqualTo("large-base");
    assertThat(g.runtime.loads).containsExactly("summarize-lora@" + address(1));
  }

  @Test
  void whenNothingQualifiesTheClosestServesAndSaysWhatItMisses() {
    g.scrapes.report(address(1), "small-base", 0, 0.1, Set.of("summarize-lora"), 0);
    g.scrapes.report(LARGE, "large-base", 0, 0.1, Set.of(), 0);
    Choice c = choose(Map.of(EppProtocol.MIN_ACCURACY, "0.95"));
    assertThat(c.target()).isEqualTo("large-base");
    assertThat(c.unmet()).containsExactly("accuracy 0.92 < 0.95");
  }

  @Test
  void aSaturatedPoolMeetsNoLatencyRequirement() {
    g.scrapes.report(address(1), "small-base", 20, 0.9, Set.of("summarize-lora"), 8);
    g.scrapes.report(LARGE, "large-base", 0, 0.1, Set.of(), 0);
    assertThat(choose(Map.of(EppProtocol.MAX_LATENCY_MS, "2000")).target()).isEqualTo("large-base");
  }

  /** Issue 52: a request that went to the dearer variant only for want of room is the cheaper pool's demand. */
  @Test
  void aRequestThatFoundTheCheaperPoolFullIsCountedAsItsDemand() {
    g.parts.capacity().meter().rates(0);
    g.scrapes.report(address(1), "small-base", 20, 0.9, Set.of("summarize-lora"), 8);
    g.scrapes.report(LARGE, "large-base", 0, 0.1, Set.of(), 0);
    choose(Map.of(EppProtocol.MAX_LATENCY_MS, "2000"));
    g.scrapes.report(address(1), "small-base", 0, 0.1, Set.of("summarize-lora"), 0);
    choose(Map.of(EppProtocol.MAX_LATENCY_MS, "2000")); // room again: no spill
    choose(Map.of(EppProtocol.MIN_ACCURACY, "0.9")); // only large qualifies: no spill
    assertThat(g.parts.capacity().meter().rates(1_000_000_000L).spills()).singleElement().satisfies(s -> {
      assertThat(s.from().name()).isEqualTo("large-pool");
      assertThat(s.to().name()).isEqualTo("pool");
      assertThat(s.share()).isGreaterThan(0.3).isLessThan(0.4); // one of three, smoothed alike
    });
  }

  @Test
  void aRouteWithTargetsIsNotItsBusiness() {
    Choice proposed = Choice.of("x", null, List.of());
    try (TestGateway other = new TestGateway(1, FileModeYaml.route("r", "pool", "plain", 0))) {
      RequestContext ctx = Contexts.resolved(other, "plain");
      assertThat(chooser.resolve(ctx, proposed)).isEqualTo(new TargetResolver.Resolution.Chosen(proposed));
    }
  }
}
