package io.llmgw.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.config.PolicyShorthand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The bench's policy list: every spelling it takes, and garbage refused before any pod starts. */
class BenchCommandTest {
  @Test
  void policySpecsReadThresholdsSessionsAndFiles() {
    BenchCommand.PolicySpec s = BenchCommand.PolicySpec.parse("seed:8+session");
    assertThat(s.name()).isEqualTo(PolicyShorthand.SEED);
    assertThat(s.threshold()).isEqualTo(8);
    assertThat(s.session()).isTrue();
    assertThat(s).hasToString("seed:8+session");
    BenchCommand.PolicySpec f = BenchCommand.PolicySpec.parse("file:some/dir/latency-lora.yaml");
    assertThat(f.file()).isEqualTo(Path.of("some/dir/latency-lora.yaml"));
    assertThat(f.learnsLatency()).isTrue();
    assertThat(f).hasToString("latency-lora");
    assertThat(BenchCommand.PolicySpec.parse("latency").learnsLatency()).isTrue();
    assertThat(BenchCommand.PolicySpec.parse("scorers").learnsLatency()).isFalse();
  }

  @Test
  void aPolicyOrFileThatCannotBeUsedIsRefusedWithOneLineBeforeAnyRun() throws Exception {
    Path garbage = Files.createTempFile("plugins", ".yaml");
    Files.writeString(garbage, "kind: EndpointPickerConfig\nplugins: [{type: no-such-scorer}]\n");
    try {
      assertThat(run("--policies", "seed,fastest")).contains("--policies takes").contains("FASTEST");
      assertThat(run("--policies", "file:" + garbage)).contains("cannot read the plugin configuration")
          .doesNotContain("at io.llmgw");
      assertThat(run("--policies", "file:" + garbage + ".missing")).contains("cannot read the plugin configuration");
      assertThat(run("--warmup", "-1")).contains("--warmup not negative");
      assertThat(run("--duration", "0")).contains("--duration must be positive");
    } finally {
      Files.deleteIfExists(garbage);
    }
  }

  private static String run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      assertThat(new CommandLine(new BenchCommand()).execute(args)).isEqualTo(2);
    } finally {
      System.setErr(old);
    }
    return err.toString(StandardCharsets.UTF_8);
  }
}
