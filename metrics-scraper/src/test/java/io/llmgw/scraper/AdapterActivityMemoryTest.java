package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 30: the adapters a pod ran lately, remembered for the warm window and never more than the cap. */
class AdapterActivityMemoryTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void anAdapterIsRememberedForTheWindowAfterItsLastReportThenForgotten() {
    AdapterActivityMemory memory = new AdapterActivityMemory(Duration.ofSeconds(30));
    assertThat(memory.update(Set.of("a"), Set.of("w"), T0)).containsExactlyInAnyOrder("a", "w");
    assertThat(memory.update(Set.of(), Set.of(), T0.plusSeconds(20))).containsExactlyInAnyOrder("a", "w");
    assertThat(memory.update(Set.of("a"), Set.of(), T0.plusSeconds(25))).containsExactlyInAnyOrder("a", "w");
    assertThat(memory.update(Set.of(), Set.of(), T0.plusSeconds(31))).as("w last seen at 0 s").containsExactly("a");
    assertThat(memory.update(Set.of(), Set.of(), T0.plusSeconds(56))).isEmpty();
  }

  @Test
  void aPodNamingEndlesslyManyAdaptersKeepsOnlyTheNewestUpToTheCap() {
    AdapterActivityMemory memory = new AdapterActivityMemory(Duration.ofHours(1));
    Set<String> last = Set.of();
    for (int i = 0; i < 1_000; i++) { // bounded: 1,000 reports of one new name each
      last = memory.update(Set.of("adapter-" + i), Set.of(), T0.plusMillis(i));
    }
    assertThat(last).hasSize(AdapterActivityMemory.MAX_NAMES).contains("adapter-999")
        .doesNotContain("adapter-0", "adapter-743");
    assertThat(new HashSet<>(last)).contains("adapter-744");
  }
}
