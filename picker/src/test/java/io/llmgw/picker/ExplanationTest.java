package io.llmgw.picker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 53: a decision's filter line a newcomer reads right. "kept 0/4" beside "kept 1/4" read as a contradiction: a
 * preference nobody met passes every candidate on, and a filter's share is of what it was given, not of the pool.
 */
class ExplanationTest {
  @Test
  void aFilterSaysWhatItKeptOfWhatItWasGivenAndWhatWentOnWhenItKeptNone() {
    assertThat(new Explanation.Filtered("fresh-metrics-filter", List.of("a"), 4, 1).text())
        .isEqualTo("fresh-metrics-filter kept 1 of 4");
    assertThat(new Explanation.Filtered("latency-objective-filter", List.of(), 4, 4).text())
        .isEqualTo("latency-objective-filter kept none of 4 (best effort: all 4 go on)");
    assertThat(new Explanation.Filtered("subset-hint-filter", List.of(), 4, 2).text())
        .isEqualTo("subset-hint-filter kept none of 4 (best effort: 2 go on)");
    assertThat(new Explanation.Filtered("adapter-residency-filter", List.of(), 3, 0).text())
        .isEqualTo("adapter-residency-filter kept none of 3");
  }
}
