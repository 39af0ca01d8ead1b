package io.llmgw.extproc.flow.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 5: two replicas share one band, but one of them holds only the light tenant's requests (its clients
 * happen to reach it). Each ordering by what it served itself, the light tenant gets two thirds of the tokens; with the
 * charges exchanged, the other replica makes up for it and the shares are even, as through one replica.
 */
class FleetTokenFairnessTest {
  private final InstantSource clock = () -> Instant.parse("2026-01-01T00:00:00Z");
  static final long HEAVY = 2_000;
  static final long LIGHT = 200;

  /** The light tenant's share of the tokens both replicas served in {@code steps} dispatches each. */
  private double lightShare(boolean exchanged, int steps) {
    ServedOutbox outOfOnlyLight = new ServedOutbox();
    ServedOutbox outOfBoth = new ServedOutbox();
    TokenCounters onlyLightCounters = new TokenCounters("default/pool", outOfOnlyLight);
    TokenCounters bothCounters = new TokenCounters("default/pool", outOfBoth);
    if (exchanged) {
      outOfOnlyLight.open();
      outOfBoth.open();
    }
    FlowQueue<String> onlyLight = new FlowQueue<>(FlowSettings.defaults(), clock, onlyLightCounters);
    FlowQueue<String> both = new FlowQueue<>(FlowSettings.defaults(), clock, bothCounters);
    for (int i = 0; i < 4; i++) {
      onlyLight.offer(onlyLight.item(0, "light", 100, Long.MAX_VALUE, LIGHT, 1, "light"));
      both.offer(both.item(0, "light", 100, Long.MAX_VALUE, LIGHT, 1, "light"));
      both.offer(both.item(0, "heavy", 100, Long.MAX_VALUE, HEAVY, 1, "heavy"));
    }
    Map<String, Long> tokens = new HashMap<>();
    for (int i = 0; i < steps; i++) {
      for (FlowQueue<String> q : List.of(onlyLight, both)) {
        FlowItem<String> next = q.poll(x -> true);
        tokens.merge(next.flowId(), next.cost(), Long::sum);
        q.offer(q.item(0, next.flowId(), 100, Long.MAX_VALUE, next.cost(), 1, next.flowId())); // still backlogged
      }
      for (ServedTokens s : outOfOnlyLight.drain()) { // one exchange message each way per step
        bothCounters.heard(s.priority(), s.flowId(), s.tokens());
      }
      for (ServedTokens s : outOfBoth.drain()) {
        onlyLightCounters.heard(s.priority(), s.flowId(), s.tokens());
      }
    }
    return (double) tokens.get("light") / (tokens.get("light") + tokens.get("heavy"));
  }

  @Test
  void exchangedChargesEvenTheSharesThatEachReplicaAloneWouldSkew() {
    assertThat(lightShare(false, 2_000)).as("each replica for itself").isCloseTo(0.68, offset(0.03));
    assertThat(lightShare(true, 2_000)).as("the fleet's counters").isCloseTo(0.5, offset(0.03));
  }

  @Test
  void aClosedOutboxKeepsNothingAndAFullOneDropsNewFlowsCountingThem() {
    ServedOutbox outbox = new ServedOutbox();
    TokenCounters counters = new TokenCounters("default/pool", outbox);
    counters.add(0, "a", 10);
    assertThat(outbox.drain()).as("no peer yet").isEmpty();
    outbox.open();
    counters.add(0, "a", 10);
    counters.add(0, "a", -4);
    counters.heard(0, "a", 100); // a peer's: counted here, not passed on
    assertThat(outbox.drain()).containsExactly(new ServedTokens("default/pool", 0, "a", 6));
    assertThat(outbox.drain()).isEmpty();
    assertThat(counters.of(0, "a")).isEqualTo(116);
    for (int i = 0; i < ServedOutbox.MAX_FLOWS + 5; i++) {
      counters.add(0, "flow-" + i, 1);
    }
    counters.add(0, "flow-0", 1); // a flow already waiting to be sent still sums
    assertThat(outbox.dropped()).isEqualTo(5);
    assertThat(outbox.drain()).hasSize(ServedOutbox.MAX_FLOWS)
        .contains(new ServedTokens("default/pool", 0, "flow-0", 2));
  }
}
