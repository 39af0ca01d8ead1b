package io.llmgw.extproc.cacheprediction;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.cacheprediction.core.CachePrediction;
import io.llmgw.extproc.cacheprediction.core.CacheTally;
import org.junit.jupiter.api.Test;

/** Issue 50, item 4: the status page's sums per pool, bounded however many pool names come. */
class CacheTallyTest {
  @Test
  void eachPoolSumsItsPredictionsAndReportsWithPrecisionAndRecall() {
    CacheTally tally = new CacheTally();
    tally.observed(CachePrediction.of("ns/a", 0.5, 1000, 400));
    tally.observed(CachePrediction.of("ns/a", 0.0, 1000, 0));
    tally.observed(CachePrediction.of("ns/b", 0.0, 100, 0));
    assertThat(tally.rows()).hasSize(2).first().satisfies(a -> {
      assertThat(a.pool()).isEqualTo("ns/a");
      assertThat(a.requests()).isEqualTo(2);
      assertThat(a.predictedTokens()).isEqualTo(500);
      assertThat(a.reportedTokens()).isEqualTo(400);
      assertThat(a.precision()).isEqualTo(0.8);
      assertThat(a.recall()).isEqualTo(1.0);
    });
    assertThat(tally.rows().get(1).precision()).as("nothing predicted: no precision to give").isNull();
  }

  @Test
  void aShareOutsideZeroToOneIsClampedAndPoolsPastTheBoundAreNotTallied() {
    assertThat(CachePrediction.of("p", 1.7, 10, 10).predictedTokens()).isEqualTo(10);
    assertThat(CachePrediction.of("p", Double.NaN, 10, 10).predictedTokens()).isZero();
    CacheTally tally = new CacheTally();
    for (int i = 0; i < 5000; i++) {
      tally.observed(CachePrediction.of("pool-" + i, 0.5, 10, 5));
    }
    assertThat(tally.rows()).hasSize(1024);
  }
}
