package io.llmgw.api;

import static io.llmgw.api.ConfigFileLoaderTest.POOL;
import static io.llmgw.api.ConfigFileLoaderTest.ROUTE;
import static io.llmgw.api.ConfigFileLoaderTest.docs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Issue 31: a tenant's budget as data, beside the routes, every field checked and every refusal placed. */
class TenantBudgetTest {
  static String budget(String spec) {
    return """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: TenantBudget
        metadata: {name: team-a}
        spec:
        """ + spec.indent(2);
  }

  @Test
  void everyFieldIsReadAndTheDefaultsAreNoLimitWeightOneAndQueue() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, budget("""
        tokensPerMinute: 20000
        tokensPerDay: 1000000
        maxConcurrentRequests: 8
        routes: [sql]
        priority: 3
        weight: 2
        overBudget: Demote
        demotedPriority: -2
        defaultOutputTokens: 256
        """), """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: TenantBudget
        metadata: {name: team-b}
        spec: {}
        """));
    TenantBudget a = c.budgets().getFirst();
    assertThat(a).isEqualTo(new TenantBudget("default", "team-a", 20_000, 1_000_000, 8, java.util.List.of("sql"), 3, 2,
        OverBudget.DEMOTE, -2, 256));
    assertThat(a.mayUse("sql")).isTrue();
    assertThat(a.mayUse("chat")).isFalse();
    TenantBudget b = c.budgets().get(1);
    assertThat(b).isEqualTo(TenantBudget.unlimited("team-b").withNamespace("default"));
    assertThat(b.mayUse("anything")).isTrue();
  }

  @Test
  void aBudgetOfZeroIsAcceptedAndMeansNothingMayBeSpent() throws Exception {
    GatewayConfig c = ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, budget("tokensPerMinute: 0\n")));
    assertThat(c.budgets().getFirst().tokensPerMinute()).isZero();
  }

  @Test
  void garbageIsRefusedNamingTheFieldItsLineAndColumn() {
    expect(budget("tokensPerMinute: -1\n"), "spec.tokensPerMinute", "-1 is out of range (0..1000000000000)");
    expect(budget("tokensPerMinute: 1e20\n"), "spec.tokensPerMinute", "must be a whole number of tokens");
    expect(budget("tokensPerDay: 99999999999999999999\n"), "spec.tokensPerDay", "out of range");
    expect(budget("tokensPerMinute: lots\n"), "spec.tokensPerMinute", "must be a whole number of tokens");
    expect(budget("overBudget: Explode\n"), "spec.overBudget", "is not Queue, Demote or Refuse");
    expect(budget("routes: [nowhere]\n"), "spec.routes[0]", "no LLMRoute 'nowhere' in namespace default");
    expect(budget("routes: [{name: sql}]\n"), "spec.routes[0]", "must be an LLMRoute's name");
    expect(budget("weight: 0\n"), "spec.weight", "out of range");
    expect(budget("overBudget: Demote\ndemotedPriority: 5\npriority: 5\n"), "spec.demotedPriority",
        "not below the tenant's priority 5");
    expect(budget("tokensPerHour: 5\n"), "spec.tokensPerHour", "unknown field");
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, budget("weight: 1\n"),
        budget("weight: 2\n")))).hasMessageContaining("TenantBudget 'team-a' is already declared in document 3");
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, budget("tokensPerMinute: -1\n"))))
        .hasMessageContaining("field spec.tokensPerMinute (line 28, column 3)");
  }

  /** The examples in the README and docs/features.md are budgets the EPP takes, as written. */
  @Test
  void theDocumentedExamplesParse() throws Exception {
    java.nio.file.Path root = java.nio.file.Path.of("..");
    int found = 0;
    for (String file : java.util.List.of("README.md", "docs/features.md")) {
      String text = java.nio.file.Files.readString(root.resolve(file));
      java.util.regex.Matcher block = java.util.regex.Pattern.compile("(?s)```yaml\n(.*?)```").matcher(text);
      while (block.find()) {
        for (String doc : block.group(1).stripIndent().split("\n---\n")) {
          if (doc.contains("kind: TenantBudget")) {
            com.fasterxml.jackson.databind.JsonNode node = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(doc);
            assertThat(ClusterObjects.budget(node).name()).as(file).isNotBlank();
            found++;
          }
        }
      }
    }
    assertThat(found).isEqualTo(2);
  }

  private static void expect(String doc, String field, String problem) {
    assertThatThrownBy(() -> ConfigFileLoader.parse("f.yaml", docs(POOL, ROUTE, doc)))
        .isInstanceOfSatisfying(ConfigException.class, e -> {
          assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
          assertThat(e.getMessage()).contains(problem);
        });
  }
}
