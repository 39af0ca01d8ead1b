package io.llmgw.picker.scorers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Pods;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The seed rule's two branches as score bands: preferred pods in [0.5, 1], the rest below 0.5. */
class LoraPackingScorerTest {
  final LoraPackingScorer scorer = new LoraPackingScorer(4);

  @Test
  void holdersBelowTheThresholdOutrankEveryOtherPodAndMorePendingRanksHigher() {
    EndpointState packed = pod(1, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 3));
    EndpointState light = pod(2, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 1));
    EndpointState full = pod(3, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 4));
    EndpointState cold = pod(4, metrics(0, 0, Set.of()), new Pods.Pending());
    double[] out = new double[4];
    scorer.score(PickRequest.of("a"), List.of(packed, light, full, cold), out);
    assertThat(out[0]).isGreaterThan(out[1]).isLessThanOrEqualTo(1.0);
    assertThat(out[1]).isGreaterThanOrEqualTo(0.5);
    assertThat(out[2]).as("at the threshold: no longer preferred").isLessThan(0.5);
    assertThat(out[3]).isLessThan(0.5).isGreaterThan(out[2]).as("fewer pending in total");
  }

  @Test
  void aThresholdBelowOneIsRefused() {
    assertThatThrownBy(() -> new LoraPackingScorer(0)).hasMessageContaining("at least 1");
  }
}
