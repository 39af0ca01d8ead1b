package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.extproc.plugins.DefaultPlugins;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The default wiring is a file an operator can print, edit and hand back with --plugins-config. */
class ServePluginsTest {
  @Test
  void theDefaultPluginConfigurationIsPrintedAndReadsBackAsAPluginsFile(@TempDir Path dir) throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      code = new CommandLine(new ServeCommand()).execute("--print-default-plugins");
    } finally {
      System.setOut(out);
    }
    assertThat(code).isZero();
    String text = printed.toString(StandardCharsets.UTF_8);
    assertThat(text).isEqualTo(DefaultPlugins.text()).contains("type: flow-control").contains("type: request-metrics");
    Path file = Files.writeString(dir.resolve("plugins.yaml"), text);
    assertThat(PluginConfigFile.load(file, w -> {}).plugins()).isEqualTo(DefaultPlugins.config().plugins());
  }
}
