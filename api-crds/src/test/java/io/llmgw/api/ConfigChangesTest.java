package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 32, item 3: an edit is described by what it changed, by name, not by counts. */
class ConfigChangesTest {
  static GatewayConfig parse(String yaml) throws ConfigException {
    return ConfigFileLoader.parse("f.yaml", yaml);
  }

  @Test
  void addedRemovedAndChangedObjectsAreNamedKindByKind() throws ConfigException {
    String pool = FileModeYaml.pool("pool", "vllm", 8000);
    GatewayConfig before = parse(pool + FileModeYaml.SEPARATOR + FileModeYaml.route("chat", "pool", "chat-lora", 5)
        + FileModeYaml.SEPARATOR + FileModeYaml.route("sql", "pool", "sql-lora", 5));
    GatewayConfig after = parse(pool + FileModeYaml.SEPARATOR + FileModeYaml.route("chat", "pool", "chat-lora", 9)
        + FileModeYaml.SEPARATOR + FileModeYaml.route("docs", "pool", "docs-lora", 5)
        + FileModeYaml.SEPARATOR + FileModeYaml.pod("pod-1", "vllm", "127.0.0.1"));
    ConfigChanges c = ConfigChanges.between(before, after);
    assertThat(c.describe()).isEqualTo("routes +default/docs -default/sql ~default/chat; pods +default/pod-1");
    assertThat(ConfigChanges.between(after, after).describe()).isEqualTo("no changes");
    assertThat(ConfigChanges.between(after, after).isEmpty()).isTrue();
  }

  /** A cluster's first list adds hundreds of pods: the description names a dozen and counts the rest. */
  @Test
  void manyChangesOfOneKindAreNamedUpToADozenThenCounted() throws ConfigException {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("pool", "vllm", 8000));
    for (int i = 0; i < 40; i++) {
      yaml.append(FileModeYaml.SEPARATOR).append(FileModeYaml.pod("pod-" + i, "vllm", "127.0.0." + (i + 1)));
    }
    String described = ConfigChanges.between(GatewayConfig.empty(), parse(yaml.toString())).describe();
    assertThat(described).startsWith("pools +default/pool; pods +default/pod-0 +default/pod-1 ")
        .contains("+default/pod-11 and 28 more").doesNotContain("pod-12");
  }
}
