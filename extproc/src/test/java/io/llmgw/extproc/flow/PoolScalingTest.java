package io.llmgw.extproc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PoolScalingTest {
  @Test
  void desiredPodsRunTheDemandWithSlack() {
    assertThat(PoolScaling.of("p", 4, 0.5, 0, 5, false).desired()).as("2 pods of demand at 80 %").isEqualTo(3);
    assertThat(PoolScaling.of("p", 4, 0.8, 0, 5, false).desired()).as("exactly at target").isEqualTo(4);
    assertThat(PoolScaling.of("p", 4, 1.0, 20, 5, false).desired()).as("saturated with 4 pods' worth waiting")
        .isEqualTo(10);
    assertThat(PoolScaling.of("p", 4, 0.0, 0, 5, false).desired()).as("never below one").isEqualTo(1);
  }

  @Test
  void aMissedObjectiveAsksForOneMorePodWhateverTheArithmetic() {
    assertThat(PoolScaling.of("p", 4, 0.2, 0, 5, true).desired()).isEqualTo(5);
    assertThat(PoolScaling.of("p", 4, 1.0, 20, 5, true).desired()).isEqualTo(10);
  }
}
