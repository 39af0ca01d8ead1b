package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigFileLoaderTest {
  static final String POOL = """
      apiVersion: inference.networking.k8s.io/v1
      kind: InferencePool
      metadata: {name: pool-a}
      spec:
        selector: {matchLabels: {app: sim}}
        targetPorts: [{number: 8000}, {number: 8001}]
      """;
  static final String ROUTE = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: sql}
      spec:
        parentRefs: [{name: gw}]
        backendRefs: [{name: pool-a}]
        adapter:
          name: sql-lora
          priority: -5
          objectives:
            - type: OutputTokenLatency
              latency: {value: 2s, quantile: {numerator: 99}}
          targets:
            - {name: sql-v1, weight: 3, source: "s3://bucket/v1"}
            - {name: sql-v2, weight: 1}
      """;
  static final String POD = """
      apiVersion: v1
      kind: Pod
      metadata: {name: p0, labels: {app: sim}}
      status:
        podIP: 127.0.0.11
        phase: Running
        conditions: [{type: Ready, status: "True"}]
      """;

  static String docs(String... d) {
    return String.join("---\n", d);
  }

  @Test
  void readsPoolsRoutesAndPodsFromOneMultiDocumentFile() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, POD));

    assertThat(c.pools()).singleElement().satisfies(p -> {
      assertThat(p.targetPorts()).containsExactly(8000, 8001);
      assertThat(p.selector()).containsEntry("app", "sim");
    });
    LLMRoute r = c.routes().getFirst();
    assertThat(r.modelName()).isEqualTo("sql-lora");
    assertThat(r.adapter().sheddable()).isTrue();
    assertThat(r.adapter().objectives().getFirst().latency()).isEqualTo(Duration.ofSeconds(2));
    assertThat(r.adapter().targets()).extracting(AdapterTarget::weight).containsExactly(3, 1);
    assertThat(r.adapter().targets().getFirst().source()).isEqualTo("s3://bucket/v1");
    PodInfo pod = c.pods().getFirst();
    assertThat(pod.routable()).isTrue();
    assertThat(c.pools().getFirst().selects(pod)).isTrue();
  }

  /** Issue 30: a pool whose pods resolve adapters themselves says so by annotation; any other value is refused. */
  @Test
  void aPoolsAdapterResolverAnnotationIsReadAndGarbageNamed() throws Exception {
    String annotated = POOL.replace("metadata: {name: pool-a}",
        "metadata: {name: pool-a, annotations: {inference.x-k8s.io/adapters-resolved-by-server: \"true\"}}");
    assertThat(ConfigFileLoader.parse("f.yaml", annotated).pools().getFirst().adaptersResolvedByServer()).isTrue();
    assertThat(ConfigFileLoader.parse("f.yaml", POOL).pools().getFirst().adaptersResolvedByServer()).isFalse();
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", annotated.replace("\"true\"", "\"yes\"")))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.getMessage())
            .contains("metadata.annotations[inference.x-k8s.io/adapters-resolved-by-server]", "'yes'"));
  }

  @Test
  void podNotReadyIsNotRoutable() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, POD.replace("\"True\"", "\"False\"")));
    assertThat(c.pods().getFirst().routable()).isFalse();
  }

  @Test
  void errorsNameFileDocumentAndField() {
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE.replace("weight: 3", "weight: 0"))))
        .isInstanceOfSatisfying(ConfigException.class, e -> {
          assertThat(e.source()).isEqualTo("f.yaml");
          assertThat(e.document()).isEqualTo(2);
          assertThat(e.field()).isEqualTo("spec.adapter.targets[0].weight");
          assertThat(e.getMessage()).contains("f.yaml", "document 2", "spec.adapter.targets[0].weight", "1..1000000");
        });
  }

  @Test
  void rejectsEachKindOfGarbageWithTheFieldAtFault() {
    expectField(docs(POOL.replace("8001", "70000")), 1, "spec.targetPorts[1].number");
    expectField(docs(POOL.replace("pool-a", "Pool_A")), 1, "metadata.name");
    expectField(docs(POOL, ROUTE.replace("value: 2s", "value: soon")), 2, "spec.adapter.objectives[0].latency.value");
    expectField(docs(POOL, ROUTE.replace("backendRefs: [{name: pool-a}]", "backendRefs: [{name: nope}]")), 2,
        "spec.backendRefs[0].name");
    expectField(docs(POOL, POD.replace("127.0.0.11", "not-an-ip")), 2, "status.podIP");
    // digits of other scripts are digits to Character.isDigit, never to an address
    expectField(docs(POOL, POD.replace("127.0.0.11", "１２７.0.0.11")), 2, "status.podIP");
    expectField(docs(POOL, POD.replace("kind: Pod", "kind: Pods")), 2, "kind");
    expectField(docs(POOL, ROUTE.replace("priority: -5", "priority: high")), 2, "spec.adapter.priority");
    expectField(docs(POOL, ROUTE, ROUTE.replace("name: sql}", "name: sql2}")), 3, "spec.adapter.name");
    expectField(docs(POOL, ROUTE, ROUTE.replace("name: sql-lora", "name: other-lora")), 3, "metadata.name");
    expectField(docs(POOL, POD, POD), 3, "metadata.name");
    expectField("apiVersion: v1\nkind: Pod\nmetadata: [1, 2]\n", 1, "metadata");
    expectField(docs(POOL, ROUTE.replace("priority: -5", "priorty: -5")), 2, "spec.adapter.priorty");
    expectField(docs(POOL, ROUTE.replace("weight: 3,", "wieght: 3,")), 2, "spec.adapter.targets[0].wieght");
  }

  /** Issue 32: a missing file is said in words, not as the JDK's exception. */
  @Test
  void aMissingFileSaysNoSuchFile() {
    assertThatThrownBy(() -> ConfigFileLoader.load(java.nio.file.Path.of("no-such-dir", "pool.yaml")))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.getMessage())
            .contains("pool.yaml", "no such file").doesNotContain("Exception"));
  }

  /** Issue 32, item 3: a number too large for its field is out of range, not "not an integer". */
  @Test
  void aNumberPastItsRangeSaysOutOfRangeWithTheBounds() {
    for (String priority : new String[] {"99999999999", "2000000"}) {
      assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE.replace("priority: -5",
          "priority: " + priority)))).isInstanceOfSatisfying(ConfigException.class, e -> {
            assertThat(e.field()).isEqualTo("spec.adapter.priority");
            assertThat(e.getMessage()).contains(priority + " is out of range (-1000000..1000000)")
                .doesNotContain("must be an integer");
          });
    }
  }

  @Test
  void brokenYamlNamesTheDocument() {
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, "kind: [unclosed\n")))
        .isInstanceOfSatisfying(ConfigException.class, e -> {
          assertThat(e.document()).isEqualTo(2);
          assertThat(e.getMessage()).contains("not valid YAML");
        });
  }

  /** Issue 16: a syntax error says where, in the file's own lines, so an operator goes straight to it. */
  @Test
  void brokenYamlSaysLineAndColumn() {
    String yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   labels: {app: x}\n";
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", yaml)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("not valid YAML at line 5, column")
        .hasMessageNotContaining("Source:");
  }

  /** Issue 53: a tab in the indentation is named as such, on its own line (the parser points at the line above). */
  @Test
  void aTabInTheIndentationIsNamedOnItsLine() {
    String yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n\tlabels: {app: x}\n";
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", yaml)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 5, column 1: a tab in the indentation");
    assertThat(YamlLocations.tabIndented("a: 1\nb: |\n  keeps\ta tab inside\n")).as("a tab after the indentation")
        .isNull();
  }

  @Test
  void theShippedExampleLoads() throws Exception {
    GatewayConfig c = ConfigFileLoader.load(Path.of("..", "examples", "pool.yaml"));
    assertThat(c.routes()).extracting(LLMRoute::modelName).contains("sql-lora");
    assertThat(c.pods()).allMatch(PodInfo::routable);
  }

  @Test
  void generatedDocumentsLoad() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("gen", FileModeYaml.pool("p", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.pod("pod-0", "sim", "127.0.0.9"));
    assertThat(c.pools().getFirst().selects(c.pods().getFirst())).isTrue();
    assertThat(c.pods().getFirst().routable()).isTrue();
  }

  @Test
  void durationsParseGoStyle() {
    assertThat(Durations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    for (String written : new String[] {"5m", "1m30s", "250ms", "1h0m", "2s", "0s"}) {
      Duration d = Durations.parse(written);
      assertThat(Durations.parse(Durations.format(d))).as(written).isEqualTo(d);
    }
    assertThat(Durations.format(Duration.ofMinutes(5))).as("issue 32: not PT5M").isEqualTo("5m");
    assertThat(Durations.format(Duration.ofMillis(90_250))).isEqualTo("1m30s250ms");
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("2 s")).isNull();
    assertThat(Durations.parse("s")).isNull();
  }

  /** Issue 13, item 7: a truncated file must not apply "no pools, no routes" and turn every request into a 404. */
  @Test
  void item7AFileWithoutDocumentsIsRejectedNotAppliedAsAnEmptyConfiguration() {
    for (String empty : new String[] {"", "   \n  \n", "# only a comment\n", "---\n---\n"}) {
      assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", empty)).as(empty)
          .isInstanceOf(ConfigException.class).hasMessageContaining("no documents");
    }
  }

  private static void expectField(String yaml, int doc, String field) {
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", yaml))
        .isInstanceOfSatisfying(ConfigException.class, e -> {
          assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
          assertThat(e.document()).as(e.getMessage()).isEqualTo(doc);
        });
  }
}
