package io.llmgw.cli;

import static io.llmgw.cli.MainTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 32, item 3: a configuration is checked before it ships, with the EPP's own checks. */
class ValidateCommandTest {
  @TempDir
  Path dir;

  static Path examples(String name) {
    return Path.of(System.getProperty("user.dir")).getParent().resolve("examples").resolve(name);
  }

  @Test
  void theShippedExamplesAreValidGatewayAndPluginFiles() {
    MainTest.Run r = run("validate", examples("pool.yaml").toString(), examples("quickstart.yaml").toString(),
        examples("plugins-scorers.yaml").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("pool.yaml: valid (1 pools, ").contains("plugins-scorers.yaml: valid "
        + "EndpointPickerConfig; lifecycle resolve: ").contains("queue-scorer");
  }

  @Test
  void aBrokenFileIsExit1NamingFileDocumentFieldLineAndColumn() throws Exception {
    String good = Files.readString(examples("pool.yaml"));
    String text = good.replaceFirst("priority: -?\\d+", "priority: 99999999999");
    Path broken = Files.writeString(dir.resolve("broken.yaml"), text);
    List<String> lines = text.lines().toList();
    int line = 0;
    while (!lines.get(line).contains("priority: 99999999999")) {
      line++;
    }
    int column = lines.get(line).indexOf("priority") + 1;
    MainTest.Run r = run("validate", broken.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("broken.yaml: document ", "field spec.adapter.priority (line " + (line + 1)
        + ", column " + column + "): 99999999999 is out of range");
    MainTest.Run missing = run("validate", dir.resolve("nope.yaml").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("nope.yaml", "no such file");
  }

  @Test
  void aPluginFileNamingAnUnknownPluginOrABadParameterIsRefusedNamingIt() throws Exception {
    Path plugins = Files.writeString(dir.resolve("plugins.yaml"), Files.readString(examples("plugins-scorers.yaml"))
        .replace("maxPrefixBlocksToMatch: 256", "maxPrefixBlocksToMatch: lots"));
    MainTest.Run r = run("validate", plugins.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("plugins.yaml", "maxPrefixBlocksToMatch", "(line ");
    Path unknown = Files.writeString(dir.resolve("unknown.yaml"), Files.readString(examples("plugins-scorers.yaml"))
        .replace("type: queue-scorer", "type: fastest-scorer"));
    assertThat(run("validate", unknown.toString()).err()).contains("fastest-scorer");
  }

  @Test
  void againstTheRunningFileItSaysWhatWouldChange() throws Exception {
    String good = Files.readString(examples("pool.yaml"));
    Path running = Files.writeString(dir.resolve("running.yaml"), good);
    Path edited = Files.writeString(dir.resolve("edited.yaml"), good.replaceFirst("priority: (-?\\d+)",
        "priority: 77"));
    MainTest.Run r = run("validate", "--against", running.toString(), edited.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("against " + running + ": routes ~");
    assertThat(run("validate", "--against", running.toString(), running.toString()).out()).contains("no changes");
  }
}
