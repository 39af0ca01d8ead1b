package io.llmgw.picker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodMetricsTest {
  @Test
  void theReportedAdaptersAreAlwaysTheUnionOfListedRunningAndWaiting() {
    PodMetrics m = new PodMetrics(0, 0, 0, 4, Set.of("run"), Set.of("wait"), Set.of("listed"), Set.of("base"),
        Instant.EPOCH, Set.of(), Set.of("made-up"));
    assertThat(m.reportedAdapters()).containsExactlyInAnyOrder("run", "wait", "listed");
    assertThat(m.reportsAdapter("made-up")).isFalse();
    assertThat(m.withModels(Set.of("other"), Set.of(), Set.of()).reportedAdapters())
        .containsExactlyInAnyOrder("run", "wait", "other");
  }

  /** Issue 30: warm is "reported active lately", and not once other adapters fill every GPU slot. */
  @Test
  void anAdapterRunLatelyIsWarmUntilOtherAdaptersTakeEverySlot() {
    PodMetrics idle = new PodMetrics(0, 0, 0, 2, Set.of(), Set.of(), Set.of("a", "b", "c"), Set.of("base"),
        Instant.EPOCH, Set.of("a"), Set.of());
    assertThat(idle.warm("a")).isTrue();
    assertThat(idle.warm("b")).as("listed only").isFalse();
    assertThat(idle.recentAdapters()).containsExactly("a");
    PodMetrics oneOther = new PodMetrics(0, 1, 0, 2, Set.of("b"), Set.of(), Set.of("a", "b", "c"), Set.of("base"),
        Instant.EPOCH, Set.of("a"), Set.of());
    assertThat(oneOther.warm("a")).as("a slot is still free: nothing had to evict it").isTrue();
    assertThat(oneOther.warm("b")).as("running is warm").isTrue();
    PodMetrics full = new PodMetrics(0, 2, 0, 2, Set.of("b"), Set.of("c"), Set.of("a", "b", "c"), Set.of("base"),
        Instant.EPOCH, Set.of("a"), Set.of());
    assertThat(full.warm("a")).as("two others hold both slots").isFalse();
    PodMetrics waitingForASlot = new PodMetrics(2, 2, 0, 2, Set.of("b", "c"), Set.of("a"), Set.of("a", "b", "c"),
        Set.of("base"), Instant.EPOCH, Set.of(), Set.of());
    assertThat(waitingForASlot.warm("a")).as("its requests wait because two others hold both slots").isFalse();
    PodMetrics waitingForSeqs = new PodMetrics(2, 2, 0, 2, Set.of("b"), Set.of("a"), Set.of("a", "b", "c"),
        Set.of("base"), Instant.EPOCH, Set.of(), Set.of());
    assertThat(waitingForSeqs.warm("a")).as("waiting, with a slot of its own").isTrue();
  }
}
