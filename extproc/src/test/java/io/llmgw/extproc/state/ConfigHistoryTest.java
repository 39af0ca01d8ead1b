package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Issue 32, item 3: the configuration's recent changes, newest first and bounded. */
class ConfigHistoryTest {
  @Test
  void changesAreKeptNewestFirstUpToTheBound() {
    ConfigHistory history = new ConfigHistory(Clock.fixed(Instant.ofEpochMilli(5_000), ZoneOffset.UTC));
    history.applied("routes +default/chat");
    history.refused("f.yaml: document 2, field spec.adapter.priority (line 9, column 5): must be an integer");
    assertThat(history.recent()).containsExactly(
        new ConfigHistory.Change(5_000, null,
            "f.yaml: document 2, field spec.adapter.priority (line 9, column 5): must be an integer"),
        new ConfigHistory.Change(5_000, "routes +default/chat", null));
    for (int i = 0; i < 100; i++) {
      history.applied("pods +default/pod-" + i);
    }
    assertThat(history.recent()).hasSize(ConfigHistory.KEPT);
    assertThat(history.recent().getFirst().changed()).isEqualTo("pods +default/pod-99");
  }
}
