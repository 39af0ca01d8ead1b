package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PodMetrics;
import io.llmgw.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UsageTrackerTest {
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T10:00:00Z"));
  final UsageTracker usage = new UsageTracker(clock);

  private static EndpointState holding(String ip, String... adapters) {
    return new EndpointState(new Endpoint("pool", ip, ip, 8000), new PodMetrics(0, 0, 0, 4, Set.of(), Set.of(),
        Set.of(adapters), Set.of("base"), Instant.EPOCH), true, InFlight.NONE);
  }

  @Test
  void countsUsesAndRemembersTheLastPerPodAndAnywhere() {
    usage.used("p:1", "a");
    clock.advance(Duration.ofSeconds(1));
    usage.used("p:2", "a");
    assertThat(usage.uses("a")).isEqualTo(2);
    assertThat(usage.lastUsed("a")).isEqualTo(clock.instant());
    assertThat(usage.lastUsedOn("p:1", "a")).isEqualTo(clock.instant().minusSeconds(1));
    usage.forget("p:1", "a");
    assertThat(usage.lastUsedOn("p:1", "a")).isEqualTo(Instant.MIN);
    assertThat(usage.lastUsed("a")).as("still used elsewhere").isNotNull();
  }

  @Test
  void theGlobalLruAgeIsTheAgeOfTheLeastRecentlyUsedResidentAdapter() {
    clock.advance(Duration.ofMinutes(10)); // "idle" was never used: it counts as used when the EPP started
    usage.used("127.0.0.1:8000", "hot");
    assertThat(usage.globalLruAge(List.of(holding("127.0.0.1", "hot"), holding("127.0.0.2", "idle"))))
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(usage.globalLruAge(List.of(holding("127.0.0.1", "hot")))).isZero();
  }
}
