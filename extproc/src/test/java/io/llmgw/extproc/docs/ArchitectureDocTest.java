package io.llmgw.extproc.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.plugins.EppPlugins;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.PluginId;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/architecture.md keeps up with the code: every plugin type the EPP runs or accepts is documented there. */
class ArchitectureDocTest {
  static final Path DOC = Path.of("..", "docs", "architecture.md");

  @Test
  void everyPluginTypeIsDocumented() throws Exception {
    String doc = Files.readString(DOC);
    for (String type : EppPlugins.builtIn().types()) {
      assertThat(doc).as("plugin " + type).contains("`" + type + "`");
    }
    try (TestGateway g = new TestGateway(1, "")) {
      for (var point : g.director().plugins().entrySet()) {
        for (PluginId id : point.getValue()) {
          assertThat(doc).as(point.getKey() + " plugin " + id.type()).contains("`" + id.type() + "`");
        }
      }
    }
  }

  @Test
  void theReadmeLinksToItAndNothingLinksOutsideTheRepository() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    assertThat(readme).contains("docs/architecture.md").doesNotContain("../shared");
  }
}
