package io.llmgw.picker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodMetricsTest {
  @Test
  void theReportedAdaptersAreAlwaysTheUnionOfLoadedRunningAndWaiting() {
    PodMetrics m = new PodMetrics(0, 0, 0, 4, Set.of("run"), Set.of("wait"), Set.of("loaded"), Set.of("base"),
        Instant.EPOCH, Set.of("made-up"));
    assertThat(m.reportedAdapters()).containsExactlyInAnyOrder("run", "wait", "loaded");
    assertThat(m.reportsAdapter("made-up")).isFalse();
    assertThat(m.withModels(Set.of("other"), Set.of()).reportedAdapters()).containsExactlyInAnyOrder("run", "wait",
        "other");
  }
}
