package io.llmgw.picker.pickers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WeightedRandomPickerTest {
  final List<EndpointState> pool = List.of(pod(1, metrics(0, 0, Set.of()), InFlight.NONE),
      pod(2, metrics(0, 0, Set.of()), InFlight.NONE), pod(3, metrics(0, 0, Set.of()), InFlight.NONE));

  @Test
  void sharesFollowTheScoresAndAZeroScoreComesLast() {
    Random random = new Random(5);
    WeightedRandomPicker picker = new WeightedRandomPicker(3, () -> random);
    int[] first = new int[3];
    for (int i = 0; i < 4000; i++) {
      List<EndpointState> ranked = picker.pick(PickRequest.of("m"), pool, new double[] {3, 1, 0});
      first[pool.indexOf(ranked.getFirst())]++;
      assertThat(ranked).hasSize(3).doesNotHaveDuplicates();
      assertThat(ranked.getLast()).as("zero score: last").isSameAs(pool.get(2));
    }
    assertThat(first[2]).isZero();
    assertThat(first[0] / 4000.0).as("3 of 4 expected").isBetween(0.71, 0.79);
  }

  @Test
  void allZeroScoresDrawUniformly() {
    Random random = new Random(9);
    WeightedRandomPicker picker = new WeightedRandomPicker(1, () -> random);
    int[] first = new int[3];
    for (int i = 0; i < 3000; i++) {
      first[pool.indexOf(picker.pick(PickRequest.of("m"), pool, new double[3]).getFirst())]++;
    }
    for (int n : first) {
      assertThat(n).isBetween(850, 1150);
    }
  }
}
