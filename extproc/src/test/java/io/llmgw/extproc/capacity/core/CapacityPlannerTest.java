package io.llmgw.extproc.capacity.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.PoolCapacity;
import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 52: the INFaaS-style planner's arithmetic, its scale-down waits and what it says. */
class CapacityPlannerTest {
  static final long SECOND = 1_000_000_000L;
  static final PoolKey SMALL = new PoolKey("default", "small");
  static final PoolKey LARGE = new PoolKey("default", "large");
  static final RouteKey SUMMARIES = new RouteKey("default", "summaries");
  static final PoolCapacity CHEAP = new PoolCapacity(1.0, Duration.ofSeconds(10), 1, 20);
  static final PoolCapacity DEAR = new PoolCapacity(4.0, Duration.ofSeconds(10), 1, 20);

  /** hysteresis 20 s, 80 % use */
  final CapacityPlanner planner = new CapacityPlanner(0.8, 20 * SECOND);

  static PoolDemand demand(PoolKey pool, PoolCapacity c, int pods, double arrival, double perPod) {
    return new PoolDemand(pool, c, pods, pods, arrival, perPod, 0, 0, false, 10, "TTFT 1000 ms");
  }

  @Test
  void podsFollowArrivalsAtTheMeasuredThroughputWithSlack() {
    Plan p = planner.plan(List.of(demand(SMALL, CHEAP, 2, 38, 10)), List.of(), 0);
    // 38 / (10 × 0.8) = 4.75 → 5
    assertThat(p.pools().getFirst().desired()).isEqualTo(5);
    assertThat(p.pools().getFirst().reason()).startsWith("+3 pods: 38.0 req/s at 10.0 req/s per pod within TTFT");
    assertThat(p.costPerHourNow()).isEqualTo(2.0);
    assertThat(p.costPerHourPlanned()).isEqualTo(5.0);
  }

  @Test
  void withoutAMeasuredThroughputTheSaturationGaugeDecides() {
    PoolDemand d = new PoolDemand(SMALL, CHEAP, 2, 2, 5, Double.NaN, 2.4, 0, false, 10, "no objective");
    assertThat(planner.plan(List.of(d), List.of(), 0).pools().getFirst().desired()).isEqualTo(3);
  }

  @Test
  void scaleDownWaitsForTheLoadTimeAndHysteresisAndTakesTheHighestCountWantedMeanwhile() {
    planner.plan(List.of(demand(SMALL, CHEAP, 5, 38, 10)), List.of(), 0);
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 1 * SECOND)).isEqualTo(5); // wants 2; waits
    PoolPlan rise = planner.plan(List.of(demand(SMALL, CHEAP, 5, 20, 10)), List.of(), 15 * SECOND).pools().getFirst();
    assertThat(rise.wanted()).as("20 req/s and rising").isBetween(3, 4);
    assertThat(rise.desired()).isEqualTo(5);
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 30 * SECOND)).isEqualTo(5); // 29 s < 10 + 20
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 31 * SECOND)).isEqualTo(rise.wanted()); // the highest wanted
  }

  /** Scale-down stops where the pods left still serve the demand within the objective, with the slack kept. */
  @Test
  void scaleDownNeverGoesBelowWhatTheDemandNeedsAtItsObjective() {
    planner.plan(List.of(demand(SMALL, CHEAP, 6, 45, 10)), List.of(), 0);
    for (long s = 1; s <= 200; s++) {
      int desired = desired(demand(SMALL, CHEAP, 6, 32.1, 10), s * SECOND);
      assertThat(desired * 10 * 0.8).as("at %d s, %d pods", s, desired).isGreaterThanOrEqualTo(32.1);
    }
    assertThat(desired(demand(SMALL, CHEAP, 6, 32.1, 10), 201 * SECOND)).isEqualTo(5);
  }

  @Test
  void neverScalesDownWhileAnObjectiveIsMissed() {
    planner.plan(List.of(demand(SMALL, CHEAP, 5, 38, 10)), List.of(), 0);
    PoolDemand missing = new PoolDemand(SMALL, CHEAP, 5, 5, 10, 10, 0, 0, true, 10, "TTFT 1000 ms");
    for (long s = 1; s <= 120; s++) {
      assertThat(desired(missing, s * SECOND)).as("at %d s", s).isEqualTo(5); // wants 2 + 1, keeps its 5
    }
  }

  @Test
  void aMissedObjectiveAsksOnePodOverTheArithmeticAndDoesNotRatchetAsPodsBecomeReady() {
    for (int ready = 3; ready <= 8; ready++) {
      PoolDemand missing = new PoolDemand(SMALL, CHEAP, ready, ready, 20, 10, 0, 0, true, 10, "TTFT 1000 ms");
      assertThat(desired(missing, ready * SECOND)).as("%d ready", ready).isLessThanOrEqualTo(Math.max(4, ready));
    }
    // unmeasured, the saturation gauge's rule: one more than the pool has
    PoolDemand blind = new PoolDemand(LARGE, DEAR, 3, 3, 5, Double.NaN, 1, 0, true, 10, "TTFT 1000 ms");
    assertThat(desired(blind, 0)).isEqualTo(4);
  }

  @Test
  void aPoolThatMayScaleToZeroGoesThereWhenIdleAndComesBackForAWaitingRequest() {
    PoolCapacity zero = new PoolCapacity(1.0, Duration.ofSeconds(10), 0, 20);
    planner.plan(List.of(demand(SMALL, zero, 1, 0, 10)), List.of(), 0);
    assertThat(desired(demand(SMALL, zero, 1, 0, 10), 31 * SECOND)).isEqualTo(0);
    PoolDemand waiting = new PoolDemand(SMALL, zero, 0, 0, 0, 10, 0, 3, false, 10, "TTFT 1000 ms");
    PoolPlan p = planner.plan(List.of(waiting), List.of(), 32 * SECOND).pools().getFirst();
    assertThat(p.desired()).isEqualTo(1);
    assertThat(p.reason()).contains("+1 pod", "3 requests wait for a pool at zero");
  }

  @Test
  void aPoolThatMayNotScaleToZeroKeepsOnePod() {
    planner.plan(List.of(demand(SMALL, CHEAP, 1, 0, 10)), List.of(), 0);
    assertThat(desired(demand(SMALL, CHEAP, 1, 0, 10), 100 * SECOND)).isEqualTo(1);
  }

  @Test
  void replicasStayWithinTheDeclaredBounds() {
    PoolCapacity bounded = new PoolCapacity(1.0, Duration.ofSeconds(10), 2, 4);
    assertThat(desired(demand(SMALL, bounded, 2, 1000, 10), 0)).isEqualTo(4);
  }

  @Test
  void spilledModelLessLoadIsTheCheaperPoolsDemandAndTheMoveIsPriced() {
    // 10 req/s of summaries went to large only because small had no room
    Spill spill = new Spill(SUMMARIES, LARGE, SMALL, 10, 0.4);
    Plan p = planner.plan(List.of(demand(SMALL, CHEAP, 1, 8, 10), demand(LARGE, DEAR, 3, 20, 5)), List.of(spill), 0);
    assertThat(p.pools().get(0).demandPerSecond()).isEqualTo(18);
    assertThat(p.pools().get(0).desired()).isEqualTo(3); // 18 / 8 → 3
    assertThat(p.pools().get(1).demandPerSecond()).isEqualTo(10);
    assertThat(p.moves()).singleElement().satisfies(m -> {
      assertThat(m.share()).isEqualTo(0.4);
      // large: 4 per hour for 5 req/s → per request 4/18000; small 1/36000; ×10 req/s × 3600 s
      assertThat(m.savingPerHour()).isCloseTo(10 * 3600 * (4.0 / 18_000 - 1.0 / 36_000), within());
    });
  }

  /**
   * The greedy's other branch: the route prefers small (its declared token cost), but a small pod costs 3/h for 2 req/s
   * (1.5 per 3,600 requests) where a large one costs 4/h for 5 req/s (0.8): growing large is cheaper, so the spill stays
   * its demand and no move is proposed.
   */
  @Test
  void spilledLoadStaysWhereItWentWhenGrowingThatPoolCostsLessPerRequest() {
    PoolCapacity pricey = new PoolCapacity(3.0, Duration.ofSeconds(10), 1, 20);
    Spill spill = new Spill(SUMMARIES, LARGE, SMALL, 10, 0.4);
    Plan p = planner.plan(List.of(demand(SMALL, pricey, 1, 1.5, 2), demand(LARGE, DEAR, 3, 20, 5)), List.of(spill), 0);
    assertThat(p.pools().get(0).demandPerSecond()).isEqualTo(1.5);
    assertThat(p.pools().get(1).demandPerSecond()).isEqualTo(20);
    assertThat(p.pools().get(1).desired()).isEqualTo(5); // 20 / (5 × 0.8)
    assertThat(p.moves()).isEmpty();
  }

  @Test
  void aPoolThatMustGrowSoonAfterItShrankFlapsAndWaitsLongerBeforeShrinkingAgain() {
    planner.plan(List.of(demand(SMALL, CHEAP, 5, 38, 10)), List.of(), 0);
    desired(demand(SMALL, CHEAP, 5, 10, 10), SECOND);
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 32 * SECOND)).isEqualTo(2); // shrank
    assertThat(planner.oscillating(SMALL)).isFalse();
    assertThat(desired(demand(SMALL, CHEAP, 2, 38, 10), 40 * SECOND)).isGreaterThanOrEqualTo(5); // grows again
    assertThat(planner.oscillating(SMALL)).isTrue();
    int grown = desired(demand(SMALL, CHEAP, 5, 10, 10), 41 * SECOND);
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 72 * SECOND)).as("30 s no longer enough").isEqualTo(grown);
    PoolPlan waiting = planner.plan(List.of(demand(SMALL, CHEAP, 5, 10, 10)), List.of(), 73 * SECOND).pools()
        .getFirst();
    assertThat(waiting.reason()).contains("the load flaps");
    assertThat(desired(demand(SMALL, CHEAP, 5, 10, 10), 102 * SECOND)).isEqualTo(2);
  }

  @Test
  void aRisingDemandIsPlannedForWhereItWillBeOnceANewPodIsReady() {
    // 8 req/s more every 10 s (the load time): 0.8 req/s per second
    for (int t = 0; t <= 30; t++) {
      desired(demand(SMALL, CHEAP, 10, 10 + 0.8 * t, 10), t * SECOND);
    }
    PoolPlan p = planner.plan(List.of(demand(SMALL, CHEAP, 10, 34.8, 10)), List.of(), 31 * SECOND).pools()
        .getFirst();
    // 34.8 now, about 42.8 in 10 s: ceil(42.8 / 8) = 6, where the demand alone asks for 5
    assertThat(p.wanted()).isEqualTo(6);
    assertThat(p.reason()).contains("34.8 req/s (42.");
  }

  @Test
  void podsAskedForThatNeverBecomeReadyAreNamedOverdue() {
    PoolDemand d = demand(SMALL, CHEAP, 1, 38, 10);
    planner.plan(List.of(d), List.of(), 0);
    PoolDemand stillOne = new PoolDemand(SMALL, CHEAP, 1, 1, 38, 10, 0, 0, false, 10, "TTFT 1000 ms");
    planner.plan(List.of(stillOne), List.of(), SECOND);
    assertThat(planner.overdue(stillOne, 60 * SECOND)).isFalse();
    PoolPlan p = planner.plan(List.of(stillOne), List.of(), 92 * SECOND).pools().getFirst();
    assertThat(planner.overdue(stillOne, 92 * SECOND)).isTrue();
    assertThat(p.reason()).contains("4 of 5 pods not ready after 92 s; load time 10 s");
    assertThat(p.desired()).isEqualTo(5); // it does not ask for ever more
  }

  @Test
  void aRestartedPlannerLetsNoPodGoBeforeItWatchedAWindow() {
    assertThat(desired(demand(SMALL, CHEAP, 6, 8, 10), 0)).isEqualTo(6);
    assertThat(desired(demand(SMALL, CHEAP, 6, 8, 10), 31 * SECOND)).isEqualTo(1);
  }

  private int desired(PoolDemand d, long now) {
    return planner.plan(List.of(d), List.of(), now).pools().getFirst().desired();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
