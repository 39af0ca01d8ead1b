package io.llmgw.picker.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: within a band, flows share by tokens served (virtual token counters), not by requests — a tenant sending
 * prompts ten times larger gets half the tokens, not ten elevenths of them.
 */
class TokenFairnessTest {
  private final InstantSource clock = () -> Instant.parse("2026-01-01T00:00:00Z");

  /** Keeps both flows backlogged and serves {@code dispatches} requests; the tokens each flow was served. */
  private static Map<String, Long> serve(FlowQueue<String> q, int dispatches, long heavyCost, long lightCost,
      int heavyWeight, int lightWeight) {
    Map<String, Long> tokens = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      q.offer(q.item(0, "heavy", 100, Long.MAX_VALUE, heavyCost, heavyWeight, "heavy"));
      q.offer(q.item(0, "light", 100, Long.MAX_VALUE, lightCost, lightWeight, "light"));
    }
    for (int i = 0; i < dispatches; i++) {
      FlowItem<String> next = q.poll(x -> true);
      tokens.merge(next.flowId(), next.cost(), Long::sum);
      long cost = next.flowId().equals("heavy") ? heavyCost : lightCost;
      int weight = next.flowId().equals("heavy") ? heavyWeight : lightWeight;
      q.offer(q.item(0, next.flowId(), 100, Long.MAX_VALUE, cost, weight, next.flowId())); // still backlogged
    }
    return tokens;
  }

  private static double share(Map<String, Long> tokens, String flow) {
    return (double) tokens.get(flow) / (tokens.get("heavy") + tokens.get("light"));
  }

  @Test
  void twoTenantsOfEqualWeightGetHalfTheTokensEachWhateverTheirRequestsCost() {
    FlowQueue<String> q = new FlowQueue<>(FlowSettings.defaults(), clock);
    Map<String, Long> tokens = serve(q, 2_000, 8_000, 800, 1, 1);
    assertThat(share(tokens, "light")).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.05));
  }

  @Test
  void roundRobinCountsRequestsSoTheHeavyTenantTakesTenElevenths() {
    FlowQueue<String> q = new FlowQueue<>(
        FlowSettings.defaults().with(FlowSettings.Fairness.ROUND_ROBIN, FlowSettings.Ordering.FCFS), clock);
    Map<String, Long> tokens = serve(q, 2_000, 8_000, 800, 1, 1);
    assertThat(share(tokens, "light")).as("the control: what tokens fairness replaces").isCloseTo(1 / 11.0,
        org.assertj.core.data.Offset.offset(0.01));
  }

  @Test
  void weightsDivideTheTokens() {
    FlowQueue<String> q = new FlowQueue<>(FlowSettings.defaults(), clock);
    Map<String, Long> tokens = serve(q, 3_000, 1_000, 1_000, 1, 3);
    assertThat(share(tokens, "light")).isCloseTo(0.75, org.assertj.core.data.Offset.offset(0.02));
  }

  @Test
  void aFlowThatArrivesLateGetsNoCreditForItsIdleTimeAndUsageCorrectsTheCharge() {
    FlowQueue<String> q = new FlowQueue<>(FlowSettings.defaults(), clock);
    for (int i = 0; i < 100; i++) {
      q.offer(q.item(0, "early", 100, Long.MAX_VALUE, 100, 1, "e" + i));
    }
    for (int i = 0; i < 40; i++) {
      q.poll(x -> true); // early has been served 4,000 tokens
    }
    for (int i = 0; i < 20; i++) {
      q.offer(q.item(0, "late", 100, Long.MAX_VALUE, 100, 1, "l" + i));
    }
    int late = 0;
    for (int i = 0; i < 10; i++) {
      late += q.poll(x -> true).flowId().equals("late") ? 1 : 0;
    }
    assertThat(late).as("the newcomer starts level with the least served, not 4,000 tokens behind").isBetween(4, 6);

    // the late flow's requests used ten times what they were charged: it waits while early catches up
    q.settle(0, "late", 100, 1_000, 1);
    q.settle(0, "late", 100, 1_000, 1);
    int earlyNext = 0;
    for (int i = 0; i < 10; i++) {
      earlyNext += q.poll(x -> true).flowId().equals("early") ? 1 : 0;
    }
    assertThat(earlyNext).isGreaterThanOrEqualTo(8);
  }

  @Test
  void countersForFlowsNoLongerWaitingAreBoundedWhateverNamesClientsSend() {
    FlowQueue<String> q = new FlowQueue<>(FlowSettings.defaults(), clock);
    q.offer(q.item(0, "steady", 100, Long.MAX_VALUE, 10, 1, "s"));
    for (int i = 0; i < 20_000; i++) {
      FlowItem<String> item = q.item(0, "flow-" + i, 100, Long.MAX_VALUE, 10, 1, "x");
      q.offer(item);
      q.remove(item);
    }
    q.offer(q.item(0, "last", 100, Long.MAX_VALUE, 10, 1, "l"));
    assertThat(q.size()).isEqualTo(2);
    assertThat(q.poll(x -> true)).isNotNull(); // and it still serves
  }
}
