package io.llmgw.picker.filters;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyModelSettings;
import io.llmgw.picker.latency.LoadSnapshot;
import io.llmgw.picker.latency.ObjectiveCheck;
import io.llmgw.picker.latency.ObjectiveLimits;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LatencyObjectiveFilterTest {
  final LatencyObjectiveFilter filter = new LatencyObjectiveFilter();
  final EndpointState fast = pod(1, metrics(0, 0, Set.of()), InFlight.NONE);
  final EndpointState slow = pod(2, metrics(0, 0, Set.of()), InFlight.NONE);

  private PickRequest withTtftLimit(double ms) {
    LatencyEstimator estimator = new LatencyEstimator(LatencyModelSettings.defaults());
    for (int i = 0; i < 50; i++) {
      estimator.observe(fast.address(), new LoadSnapshot(0, 0, 0), 100, 100, 10);
      estimator.observe(slow.address(), new LoadSnapshot(0, 0, 0), 100, 900, 10);
    }
    return PickRequest.of("m").withObjective(ObjectiveCheck.of(new ObjectiveLimits(ms, 0), 25, estimator, 0.8));
  }

  @Test
  void keepsOnlyEndpointsPredictedWithinTheLimitLessHeadroom() {
    PickRequest r = withTtftLimit(1_000); // 800 ms usable: the 900 ms pod is out
    assertThat(filter.keep(r, fast)).isTrue();
    assertThat(filter.keep(r, slow)).isFalse();
  }

  @Test
  void withoutLimitsEveryEndpointPasses() {
    assertThat(filter.keep(PickRequest.of("m"), slow)).isTrue();
  }

  @Test
  void itIsAPreferenceNotARefusal() {
    assertThat(filter.whyNone(withTtftLimit(10), List.of(fast, slow))).isNull();
  }
}
