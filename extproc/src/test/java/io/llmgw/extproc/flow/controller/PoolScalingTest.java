package io.llmgw.extproc.flow.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.PoolKey;
import org.junit.jupiter.api.Test;

class PoolScalingTest {
  static final PoolKey P = new PoolKey("default", "p");

  @Test
  void desiredPodsRunTheDemandWithSlack() {
    assertThat(PoolScaling.of(P, 4, 0.5, 0, 5, false, 0.8).desired()).as("2 pods of demand at 80 %").isEqualTo(3);
    assertThat(PoolScaling.of(P, 4, 0.8, 0, 5, false, 0.8).desired()).as("exactly at target").isEqualTo(4);
    assertThat(PoolScaling.of(P, 4, 1.0, 20, 5, false, 0.8).desired()).as("saturated with 4 pods' worth waiting")
        .isEqualTo(10);
    assertThat(PoolScaling.of(P, 4, 0.0, 0, 5, false, 0.8).desired()).as("never below one").isEqualTo(1);
  }

  @Test
  void aMissedObjectiveAsksForOneMorePodWhateverTheArithmetic() {
    assertThat(PoolScaling.of(P, 4, 0.2, 0, 5, true, 0.8).desired()).isEqualTo(5);
    assertThat(PoolScaling.of(P, 4, 1.0, 20, 5, true, 0.8).desired()).isEqualTo(10);
  }
}
