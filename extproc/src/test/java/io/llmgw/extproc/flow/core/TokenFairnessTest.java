package io.llmgw.extproc.flow.core;

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
    TokenCounters counters = new TokenCounters();
    FlowQueue<String> q = new FlowQueue<>(FlowSettings.defaults(), clock, counters);
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
    counters.add(0, "late", 1_000 - 100);
    counters.add(0, "late", 1_000 - 100);
    int earlyNext = 0;
    for (int i = 0; i < 10; i++) {
      earlyNext += q.poll(x -> true).flowId().equals("early") ? 1 : 0;
    }
    assertThat(earlyNext).isGreaterThanOrEqualTo(8);
  }

  @Test
  void aFlowJoiningADrainedBandGetsNoCreditForTheTimeItWasAway() {
    TokenCounters counters = new TokenCounters();
    FlowQueue<String> first = new FlowQueue<>(FlowSettings.defaults(), clock, counters);
    for (int i = 0; i < 10; i++) {
      first.offer(first.item(0, "heavy", 100, Long.MAX_VALUE, 2_000, 1, "h"));
      first.poll(x -> true);
    }
    // the queue drained and went; the next one, for the same pools, has the same counters: the light flow, away
    // while heavy was served 20,000 tokens, starts where heavy is, not 100 light requests ahead of it
    FlowQueue<String> next = new FlowQueue<>(FlowSettings.defaults(), clock, counters);
    for (int i = 0; i < 30; i++) {
      next.offer(next.item(0, "light", 100, Long.MAX_VALUE, 200, 1, "l"));
    }
    next.offer(next.item(0, "heavy", 100, Long.MAX_VALUE, 2_000, 1, "h"));
    int lightFirst = 0;
    while (next.poll(x -> true).flowId().equals("light")) {
      lightFirst++;
    }
    assertThat(lightFirst).as("heavy's turn comes after about one heavy request's worth of light ones").isBetween(0,
        11);
  }

  @Test
  void countersAreBoundedWhateverFlowNamesClientsSend() {
    TokenCounters counters = new TokenCounters();
    for (int i = 0; i < TokenCounters.MAX_COUNTERS + 10; i++) {
      counters.add(0, "flow-" + i, 10);
    }
    assertThat(counters.size()).isLessThanOrEqualTo(TokenCounters.MAX_COUNTERS);
  }
}
