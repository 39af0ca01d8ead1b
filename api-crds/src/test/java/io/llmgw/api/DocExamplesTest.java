package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 53: every gateway object a document shows in a YAML block (README.md, docs/) loads beside the shipped
 * example's pools and routes, so an example a newcomer copies is one the gateway accepts.
 */
class DocExamplesTest {
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyGatewayObjectInTheDocsLoadsBesideTheShippedExample() throws Exception {
    String example = Files.readString(Path.of("..", "examples", "pool.yaml"));
    List<Path> docs = new ArrayList<>(List.of(Path.of("..", "README.md")));
    try (Stream<Path> files = Files.list(Path.of("..", "docs"))) {
      files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    int checked = 0;
    for (Path doc : docs) {
      Matcher m = YAML_BLOCK.matcher(Files.readString(doc));
      while (m.find()) {
        for (String document : m.group(1).stripIndent().split("(?m)^---\\s*$")) {
          if (!document.contains("apiVersion:")) {
            continue; // a keys file or a plugin file: not a gateway object
          }
          String yaml = document;
          assertThatCode(() -> ConfigFileLoader.parse(doc.getFileName().toString(), example + "\n---\n" + yaml))
              .as(doc + ":\n" + yaml).doesNotThrowAnyException();
          checked++;
        }
      }
    }
    assertThat(checked).as("the TenantBudget examples at least").isGreaterThanOrEqualTo(2);
  }
}
