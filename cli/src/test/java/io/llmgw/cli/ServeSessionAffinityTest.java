package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.request.prepare.SessionIdProducer;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 17, item 2: which scheduling {@code serve}'s flags give. The session-affinity scorer joins the --policy at
 * weight 2 unless the policy is {@code scorers} (its prefix-cache scorer follows conversations already) or a
 * --plugins-config file chooses the plugins; the flag sets the weight, the header and the user field.
 */
class ServeSessionAffinityTest {
  static SchedulingConfig scheduling(String... args) throws Exception {
    ServeCommand serve = new ServeCommand();
    new CommandLine(serve).parseArgs(args);
    return serve.settings().scheduling();
  }

  static PluginSpec session(SchedulingConfig c) {
    return c.plugins().stream().filter(p -> p.type().equals(SessionAffinityScorer.TYPE)).findFirst().orElse(null);
  }

  static PluginSpec producer(SchedulingConfig c) {
    return c.plugins().stream().filter(p -> p.type().equals(SessionIdProducer.TYPE)).findFirst().orElse(null);
  }

  static double weightOf(SchedulingConfig c, PluginSpec p) {
    return c.profiles().getFirst().plugins().stream().filter(r -> r.pluginRef().equals(p.name())).findFirst()
        .orElseThrow().weight();
  }

  @Test
  void theDefaultPolicyGetsSessionAffinityAtWeightTwo() throws Exception {
    SchedulingConfig seed = scheduling("--config", "../examples/pool.yaml");
    assertThat(session(seed)).isNotNull();
    assertThat(weightOf(seed, session(seed))).isEqualTo(2.0);
    assertThat(producer(seed).parameters()).containsEntry("sessionHeader", "x-session-id")
        .containsEntry("useUserField", false);
    assertThat(seed.source()).contains("--policy seed").contains("--session-affinity 2.0");
  }

  @Test
  void scorersAndPluginFilesGetItOnlyWhenAsked() throws Exception {
    assertThat(session(scheduling("--config", "../examples/pool.yaml", "--policy", "scorers"))).isNull();
    assertThat(session(scheduling("--config", "../examples/pool.yaml", "--plugins-config",
        "../examples/plugins-scorers.yaml"))).isNull();
    SchedulingConfig asked = scheduling("--config", "../examples/pool.yaml", "--plugins-config",
        "../examples/plugins-scorers.yaml", "--session-affinity", "3", "--session-header", "X-Chat-Id",
        "--session-from-user");
    assertThat(weightOf(asked, session(asked))).isEqualTo(3.0);
    assertThat(producer(asked).parameters()).containsEntry("sessionHeader", "x-chat-id")
        .containsEntry("useUserField", true);
  }

  @Test
  void zeroLeavesItOutAndANegativeWeightIsRefused() throws Exception {
    assertThat(session(scheduling("--config", "../examples/pool.yaml", "--session-affinity", "0"))).isNull();
    assertThatThrownBy(() -> scheduling("--config", "../examples/pool.yaml", "--session-affinity", "-1"))
        .hasMessageContaining("--session-affinity is a weight between 0 and 1000");
    assertThat(List.of(scheduling("--config", "../examples/pool.yaml", "--policy", "least-request"))
        .getFirst().plugins()).anyMatch(p -> p.type().equals(SessionAffinityScorer.TYPE));
  }

  @Test
  void aPluginsFileThatNamesTheSessionProducerAndTheSessionFlagsAreNotBothTaken(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("plugins.yaml"), """
        kind: EndpointPickerConfig
        plugins:
          - type: session-id-producer
            parameters: {sessionHeader: x-chat-id}
          - type: max-score-picker
        schedulingProfiles:
          - name: default
            plugins: [{pluginRef: max-score-picker}]
        """);
    SchedulingConfig fromFile = scheduling("--config", "../examples/pool.yaml", "--plugins-config", file.toString(),
        "--session-affinity", "2");
    assertThat(producer(fromFile).parameters()).as("the file's producer, not a second one")
        .containsEntry("sessionHeader", "x-chat-id");
    assertThat(fromFile.plugins()).filteredOn(p -> p.type().equals(SessionIdProducer.TYPE)).hasSize(1);
    assertThatThrownBy(() -> scheduling("--config", "../examples/pool.yaml", "--plugins-config", file.toString(),
        "--session-affinity", "2", "--session-header", "x-other")).hasMessageContaining("give one");
  }
}
