package io.llmgw.extproc.observe;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.objectives.controller.RequestTiming;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.latency.LoadSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, item 6: a route's objective is judged on its recent requests only. After an overload the verdict
 * recovers once the overload's requests are older than the horizon, an idle route has no verdict, and the pool's
 * desired pods stop asking for one more than it has.
 */
class ObjectiveVerdictTest {
  static final String ROUTE = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: sql}
      spec:
        backendRefs: [{name: pool}]
        adapter:
          name: base
          priority: 10
          objectives: [{type: TimeToFirstToken, latency: {value: 500ms, quantile: {numerator: 99}}}]
      """;

  final TestGateway g = new TestGateway(2, ROUTE);

  @AfterEach
  void close() {
    g.close();
  }

  ObjectiveStatus objective() {
    return g.parts.status().report().routes().getFirst().objectives().getFirst();
  }

  PoolScaling pool() {
    return g.parts.status().report().pools().getFirst();
  }

  void observe(int requests, double ttftMs) {
    LLMRoute route = g.datastore().topology().routesByModel().get("base").route();
    for (int i = 0; i < requests; i++) {
      g.parts.latency().observe(new RequestTiming(route, address(1), new LoadSnapshot(0, 0, 0), 100, ttftMs, ttftMs,
          20, "base", 10));
    }
  }

  @Test
  void anObjectiveIsShownBeforeTrafficWithoutAVerdict() {
    g.allIdle(2);
    ObjectiveStatus o = objective();
    assertThat(o.type()).isEqualTo("TimeToFirstToken");
    assertThat(o.limitMs()).isEqualTo(500);
    assertThat(o.samples()).isZero();
    assertThat(o.attainment()).isNaN();
    assertThat(pool().objectivesMissed()).isFalse();
  }

  @Test
  void afterAnOverloadAndFiveIdleMinutesTheVerdictIsBackAndThePoolStopsAskingForMorePods() {
    g.allIdle(2);
    observe(200, 21_000);
    assertThat(objective().attainment()).isZero();
    assertThat(objective().samples()).isEqualTo(200);
    assertThat(pool().objectivesMissed()).isTrue();
    assertThat(pool().desired()).as("a missed objective asks for one pod more").isEqualTo(3);

    g.clock.advance(Duration.ofMinutes(5).plusSeconds(1));
    g.allIdle(2); // fresh, idle reports
    ObjectiveStatus idle = objective();
    assertThat(idle.samples()).isZero();
    assertThat(idle.attainment()).isNaN();
    assertThat(idle.total()).as("the lifetime count stays for the record").isEqualTo(200);
    assertThat(pool().objectivesMissed()).isFalse();
    assertThat(pool().desired()).as("an idle pool asks for no more than it has").isLessThanOrEqualTo(2);
  }

  @Test
  void aFewSlowRequestsOnANearlyIdleRouteAreNotAMissedObjective() {
    g.allIdle(2);
    observe(5, 21_000);
    assertThat(objective().attainment()).isZero();
    assertThat(pool().objectivesMissed()).as("5 requests are fewer than the 20 it takes to ask for a pod").isFalse();
    observe(30, 100);
    assertThat(objective().samples()).isEqualTo(35);
    assertThat(objective().attainment()).isCloseTo(30 / 35.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(pool().objectivesMissed()).as("35 recent requests, 86 % within 500 ms of a p99 objective").isTrue();
  }
}
