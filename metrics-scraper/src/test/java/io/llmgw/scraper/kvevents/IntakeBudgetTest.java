package io.llmgw.scraper.kvevents;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 47: what one pod's socket may hold is a byte share of the budget, whatever the count of pods. */
class IntakeBudgetTest {
  static final KvEventSettings DEFAULTS = new KvEventSettings(5557, 0, "", Duration.ofSeconds(1));

  @Test
  void eachSocketHoldsNoMoreThanItsShareAndTheSharesNoMoreThanTheBudget() {
    for (int pods : new int[] {1, 2, 4, 16, 64, 100, 1_000}) {
      IntakeBudget b = IntakeBudget.forPods(DEFAULTS, pods);
      assertThat(b.boundBytes()).as("%d pods", pods).isLessThanOrEqualTo(b.shareBytes());
      assertThat(b.highWaterMark()).isPositive();
      assertThat(b.maxMessageBytes()).isLessThanOrEqualTo(KvEventSettings.DEFAULT_MAX_MESSAGE_BYTES);
      assertThat(b.boundBytes() * pods).as("%d pods", pods)
          .isLessThanOrEqualTo(Math.max(KvEventSettings.DEFAULT_BUDGET_BYTES, pods * IntakeBudget.MIN_SHARE_BYTES));
    }
    IntakeBudget one = IntakeBudget.forPods(DEFAULTS, 1);
    assertThat(one.maxMessageBytes()).as("a pod alone takes batches up to the limit").isEqualTo(4 << 20);
    assertThat(IntakeBudget.forPods(DEFAULTS, 1_000).maxMessageBytes()).as("with many, the share bounds them")
        .isEqualTo(512 << 10);
  }

  @Test
  void aSocketIsMadeAgainOnlyOnceItsShareHasHalved() {
    IntakeBudget four = IntakeBudget.forPods(DEFAULTS, 4);
    assertThat(four.exceeds(IntakeBudget.forPods(DEFAULTS, 6))).isFalse();
    assertThat(four.exceeds(IntakeBudget.forPods(DEFAULTS, 16))).isTrue();
    assertThat(IntakeBudget.forPods(DEFAULTS, 16).exceeds(four)).as("a bigger share keeps the socket").isFalse();
  }
}
