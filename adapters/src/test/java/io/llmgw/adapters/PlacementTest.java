package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a missing adapter goes: pure, over pod views. */
class PlacementTest {
  static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private static PodView pod(String address, Set<String> resident, int loading, Map<String, Instant> lastUse,
      Map<String, Integer> inFlight, Set<String> pinned) {
    return new PodView(address, true, resident, loading, lastUse, inFlight, pinned, 2);
  }

  @Test
  void theRoomiestPodWinsAndNothingIsEvicted() {
    var full = pod("a", Set.of("x", "y"), 0, Map.of(), Map.of(), Set.of());
    var half = pod("b", Set.of("x"), 0, Map.of(), Map.of(), Set.of());
    assertThat(Placement.choose(List.of(full, half), Set.of(), 2)).isEqualTo(new Placement.Choice("b", null));
  }

  @Test
  void whenEveryPodIsFullTheOldestIdleUnpinnedAdapterGoes() {
    var busyOld = pod("a", Set.of("x", "y"), 0, Map.of("x", T0, "y", T0.plusSeconds(9)), Map.of("x", 1), Set.of());
    var pinnedOld = pod("b", Set.of("p", "q"), 0, Map.of("p", T0, "q", T0.plusSeconds(8)), Map.of(), Set.of("p"));
    var plain = pod("c", Set.of("r", "s"), 0, Map.of("r", T0.plusSeconds(5), "s", T0.plusSeconds(6)), Map.of(),
        Set.of());
    assertThat(Placement.choose(List.of(busyOld, pinnedOld, plain), Set.of(), 2))
        .isEqualTo(new Placement.Choice("c", "r"));
  }

  @Test
  void triedFailedOrBusyLoadingPodsAreSkipped() {
    var tried = pod("a", Set.of(), 0, Map.of(), Map.of(), Set.of());
    var loading = pod("b", Set.of(), 1, Map.of(), Map.of(), Set.of());
    assertThat(Placement.choose(List.of(tried, loading), Set.of("a"), 1)).isNull();
    assertThat(Placement.choose(List.of(tried, loading), Set.of("a"), 2)).isEqualTo(new Placement.Choice("b", null));
  }
}
