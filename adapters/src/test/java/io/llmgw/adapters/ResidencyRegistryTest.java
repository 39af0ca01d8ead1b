package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** This EPP's own loads and unloads stand in for the pods' reports for a while, then the reports alone count. */
class ResidencyRegistryTest {
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T10:00:00Z"));
  final ResidencyRegistry registry = new ResidencyRegistry(clock, Duration.ofSeconds(10));

  @Test
  void anOwnActionCountsUntilItsTimeIsUpAndTheLatestActionWins() {
    assertThat(registry.lately("p:1", "a")).isNull();
    registry.loaded("p:1", "a");
    assertThat(registry.lately("p:1", "a")).isTrue();
    assertThat(registry.loadedLately("p:1")).containsExactly("a");
    clock.advance(Duration.ofSeconds(5));
    registry.unloaded("p:1", "a");
    assertThat(registry.lately("p:1", "a")).isFalse();
    assertThat(registry.loadedLately("p:1")).isEmpty();
    clock.advance(Duration.ofMillis(9_999));
    assertThat(registry.lately("p:1", "a")).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(registry.lately("p:1", "a")).as("the pod's report stands again").isNull();
  }

  @Test
  void aFailedUnloadGivesThePodsReportBack() {
    registry.unloaded("p:1", "a");
    registry.unloadFailed("p:1", "a");
    assertThat(registry.lately("p:1", "a")).isNull();
  }

  @Test
  void theReaperDropsExpiredActionsAndPodsThatLeft() {
    registry.loaded("p:1", "a");
    registry.loaded("p:2", "b");
    clock.advance(Duration.ofSeconds(3));
    registry.loaded("p:1", "c");
    clock.advance(Duration.ofSeconds(8));
    assertThat(registry.reap(Set.of("p:1"))).as("p:1's expired 'a' and the departed p:2").isEqualTo(2);
    assertThat(registry.size()).isEqualTo(1);
    assertThat(registry.lately("p:1", "c")).isTrue();
  }
}
