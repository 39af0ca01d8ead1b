package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue 13: any configuration file — a valid one mangled anywhere, garbage, alias bombs, deep nesting — is either a
 * configuration or a {@link ConfigException} that names the file; nothing else escapes, and an empty or blank file is
 * never a configuration (it would route nothing).
 */
class ConfigYamlProperties {
  @Property(seed = "1307")
  void anyFileIsAConfigurationOrAConfigException(@ForAll("files") String yaml) {
    try {
      GatewayConfig config = ConfigFileLoader.parse("prop.yaml", yaml);
      assertThat(yaml.isBlank()).as("a blank file is no configuration").isFalse();
      assertThat(config).isNotNull();
      Statistics.collect("accepted");
    } catch (ConfigException e) {
      assertThat(e.getMessage()).contains("prop.yaml");
      Statistics.collect("rejected");
    }
  }

  @Provide
  Arbitrary<String> files() {
    String valid = FileModeYaml.pool("pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.route("chat", "pool", "chat-lora", 5) + FileModeYaml.SEPARATOR
        + FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v2", "hf://org/sql-v2") + FileModeYaml.SEPARATOR
        + FileModeYaml.pods("pod", "sim", List.of("127.0.0.11:8000", "127.0.0.12:8000"));
    Arbitrary<String> mangled = Combinators.combine(Arbitraries.integers().between(0, valid.length()),
        Arbitraries.strings().ofMaxLength(10), Arbitraries.of("insert", "truncate", "replace", "delete"),
        Arbitraries.strings().withChars(":-{}[]&*!|>'\"#%@ \n\t").ofMaxLength(6))
        .as((at, s, how, yamlish) -> {
          String x = s + yamlish;
          return switch (how) {
            case "insert" -> valid.substring(0, at) + x + valid.substring(at);
            case "truncate" -> valid.substring(0, at);
            case "delete" -> valid.substring(0, at) + valid.substring(Math.min(valid.length(), at + x.length()));
            default -> valid.substring(0, at) + x + valid.substring(Math.min(valid.length(), at + x.length()));
          };
        });
    Arbitrary<String> bomb = Arbitraries.integers().between(2, 9).map(depth -> {
      StringBuilder sb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
      for (int i = 1; i <= depth; i++) {
        String prev = "*a" + (i - 1);
        sb.append("a").append(i).append(": &a").append(i).append(" [").append(String.join(", ",
            java.util.Collections.nCopies(9, prev))).append("]\n");
      }
      return sb.toString();
    });
    Arbitrary<String> deep = Arbitraries.integers().between(50, 5_000).map(n -> "[".repeat(n) + "]".repeat(n));
    return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(valid)), Tuple.of(6, mangled),
        Tuple.of(2, Arbitraries.strings().ofMaxLength(300)), Tuple.of(1, bomb), Tuple.of(1, deep),
        Tuple.of(1, Arbitraries.of("", " ", "\n\n", "---", "---\n---\n", "# only a comment\n", "~", "null")));
  }
}
