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

  private ObjectiveCheck ttftWithin(double ms) {
    return ObjectiveCheck.of(new ObjectiveLimits(ms, 0), 100, estimator, 0.8, LoadSnapshot::of);
  }

  @Test
  void noLimitsMeansNothingToCheck() {
    assertThat(ObjectiveCheck.of(ObjectiveLimits.NONE, 100, estimator, 0.8, LoadSnapshot::of)).isNull();
  }

  @Test
  void anEndpointQualifiesWithHeadroomLeft() {
    learn(700);
    assertThat(ttftWithin(1_000).meets(pod)).isTrue();
    assertThat(ttftWithin(800).meets(pod)).isFalse();
  }

  @Test
  void oneDecisionPredictsEachEndpointOnceAndTheNextDecisionAnew() {
    learn(100);
    ObjectiveCheck decision = ttftWithin(500);
    assertThat(decision.anyMeets(List.of(pod))).isTrue();
    learn(5_000); // the pod became slow after the first question
    assertThat(decision.meets(pod)).as("the same decision keeps its answer").isTrue();
    assertThat(ttftWithin(500).meets(pod)).isFalse();
  }

  @Test
  void eachEndpointIsJudgedByTheLoadThisRequestMeetsThere() {
    // learnt: an adapter waiting for a batch slot adds 600 ms; a cached prompt skips 1k tokens of 0.3 ms prefill each
    for (int i = 0; i < 300; i++) {
      estimator.observe(pod.address(), new LoadSnapshot(0, 0, 0, 0, LoadSnapshot.IN_BATCH), 1_000, 400, 10);
      estimator.observe(pod.address(), new LoadSnapshot(0, 0, 0, 0, LoadSnapshot.NO_SLOT), 1_000, 1_000, 10);
      estimator.observe(pod.address(), new LoadSnapshot(0, 0, 0, 1, LoadSnapshot.IN_BATCH), 1_000, 100, 10);
    }
    ObjectiveLimits limits = new ObjectiveLimits(600, 0);
    assertThat(ObjectiveCheck.of(limits, 1_000, estimator, 0.8,
        e -> new LoadSnapshot(0, 0, 0, 0, LoadSnapshot.IN_BATCH)).meets(pod)).as("cold, adapter in batch").isTrue();
    assertThat(ObjectiveCheck.of(limits, 1_000, estimator, 0.8,
        e -> new LoadSnapshot(0, 0, 0, 0, LoadSnapshot.NO_SLOT)).meets(pod)).as("adapter waits for a slot").isFalse();
    ObjectiveLimits tight = new ObjectiveLimits(200, 0);
    assertThat(ObjectiveCheck.of(tight, 1_000, estimator, 0.8,
        e -> new LoadSnapshot(0, 0, 0, 1, LoadSnapshot.IN_BATCH)).meets(pod)).as("prompt cached there").isTrue();
    ObjectiveCheck cold = ObjectiveCheck.of(tight, 1_000, estimator, 0.8,
        e -> new LoadSnapshot(0, 0, 0, 0, LoadSnapshot.IN_BATCH));
    assertThat(cold.meets(pod)).as("the same prompt, not cached").isFalse();
    assertThat(cold.renewed(limits).meets(pod)).as("renewed keeps the request's loads").isTrue();
    assertThat(cold.renewed(ObjectiveLimits.NONE)).isNull();
  }

  @Test
  void aTimeToFirstTokenLimitSpentWhileWaitingIsDropped() {
    assertThat(new ObjectiveLimits(300, 20).after(100)).isEqualTo(new ObjectiveLimits(200, 20));
    assertThat(new ObjectiveLimits(300, 20).after(400)).isEqualTo(new ObjectiveLimits(0, 20));
    assertThat(new ObjectiveLimits(300, 0).after(400).any()).isFalse();
  }
}
