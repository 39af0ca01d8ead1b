package io.llmgw.picker.pickers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MaxScorePickerTest {
  final List<EndpointState> pool = List.of(pod(1, metrics(0, 0, Set.of()), InFlight.NONE),
      pod(2, metrics(0, 0, Set.of()), InFlight.NONE), pod(3, metrics(0, 0, Set.of()), InFlight.NONE),
      pod(4, metrics(0, 0, Set.of()), InFlight.NONE));

  @Test
  void theHighestScoresComeFirstUpToItsLimit() {
    Random random = new Random(1);
    List<EndpointState> ranked = new MaxScorePicker(3, () -> random).pick(PickRequest.of("m"), pool,
        new double[] {0.1, 0.9, 0.5, 0.7});
    assertThat(ranked).containsExactly(pool.get(1), pool.get(3), pool.get(2));
  }

  @Test
  void equalScoresAreOrderedAtRandom() {
    Random random = new Random(2);
    MaxScorePicker picker = new MaxScorePicker(1, () -> random);
    Set<EndpointState> primaries = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      primaries.add(picker.pick(PickRequest.of("m"), pool, new double[] {1, 1, 1, 0}).getFirst());
    }
    assertThat(primaries).containsExactlyInAnyOrder(pool.get(0), pool.get(1), pool.get(2));
  }
}
