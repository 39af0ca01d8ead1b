package io.llmgw.picker.latency;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ObjectiveCheckTest {
  final LatencyEstimator estimator = new LatencyEstimator(LatencyModelSettings.defaults());
  final EndpointState pod = pod(1, metrics(0, 0, Set.of()), InFlight.NONE);

  private void learn(double ttftMs) {
    for (int i = 0; i < 200; i++) {
      estimator.observe(pod.address(), new LoadSnapshot(0, 0, 0), 100, ttftMs, 10);
    }
  }

  @Test
  void noLimitsMeansNothingToCheck() {
    assertThat(ObjectiveCheck.of(ObjectiveLimits.NONE, 100, estimator, 0.8)).isNull();
  }

  @Test
  void anEndpointQualifiesWithHeadroomLeft() {
    learn(700);
    assertThat(ObjectiveCheck.of(new ObjectiveLimits(1_000, 0), 100, estimator, 0.8).meets(pod)).isTrue();
    assertThat(ObjectiveCheck.of(new ObjectiveLimits(800, 0), 100, estimator, 0.8).meets(pod)).isFalse();
  }

  @Test
  void oneDecisionPredictsEachEndpointOnceAndTheNextDecisionAnew() {
    learn(100);
    ObjectiveCheck decision = ObjectiveCheck.of(new ObjectiveLimits(500, 0), 100, estimator, 0.8);
    assertThat(decision.anyMeets(List.of(pod))).isTrue();
    learn(5_000); // the pod became slow after the first question
    assertThat(decision.meets(pod)).as("the same decision keeps its answer").isTrue();
    assertThat(ObjectiveCheck.of(new ObjectiveLimits(500, 0), 100, estimator, 0.8).meets(pod)).isFalse();
  }

  @Test
  void aTimeToFirstTokenLimitSpentWhileWaitingIsDropped() {
    assertThat(new ObjectiveLimits(300, 20).after(100)).isEqualTo(new ObjectiveLimits(200, 20));
    assertThat(new ObjectiveLimits(300, 20).after(400)).isEqualTo(new ObjectiveLimits(0, 20));
    assertThat(new ObjectiveLimits(300, 0).after(400).any()).isFalse();
  }
}
