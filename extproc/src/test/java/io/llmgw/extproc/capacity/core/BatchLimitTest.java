package io.llmgw.extproc.capacity.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BatchLimitTest {
  @Test
  void aDeclaredLimitHoldsFromTheFirstPassBeforeAnyQueueTaughtOne() {
    assertThat(BatchLimit.of(8, 0, 300, 0)).isEqualTo(8);
    assertThat(BatchLimit.of(8, 65_536, 300, 0)).as("the cache holds 218 such requests").isEqualTo(8);
  }

  @Test
  void theKvCacheBoundsADeclaredLimitForLongRequests() {
    assertThat(BatchLimit.of(256, 65_536, 4_096, 0)).isEqualTo(16);
    assertThat(BatchLimit.of(256, 1_000, 4_096, 0)).as("never below one").isEqualTo(1);
    assertThat(BatchLimit.of(256, 65_536, Double.NaN, 0)).as("size unknown: the declaration").isEqualTo(256);
  }

  @Test
  void whatPodsRanWithAQueueIsAFloorUnderEverything() {
    assertThat(BatchLimit.of(256, 65_536, 4_096, 20)).as("the cache is shared by prefixes").isEqualTo(20);
    assertThat(BatchLimit.of(4, 0, 300, 6)).as("a declaration below what ran").isEqualTo(6);
  }

  @Test
  void withoutADeclarationOnlyWhatRanCountsNotTheCache() {
    assertThat(BatchLimit.of(0, 65_536, 300, 0)).isZero();
    assertThat(BatchLimit.of(0, 65_536, 300, 5)).isEqualTo(5);
    assertThat(BatchLimit.of(-1, 0, 0, -3)).isZero();
  }
}
