package io.llmgw.extproc.flow.controller;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.testing.TestGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Flow control on its own: dispatch on signals only while the pool has room, highest priority first; TTL, eviction
 * and cancellation each leave the queue exactly once with their outcome. Dispatch passes run on the test's thread.
 */
class FlowControlTest {
  final TestGateway g = new TestGateway(2, "");
  final List<String> left = new ArrayList<>();
  final FlowControl flow = flow(TestGateway.settings().flow());
  final List<PoolView> pools = List.copyOf(g.datastore().topology().poolsByKey().values());
  final PoolKey pool = new PoolKey("default", "pool");

  @AfterEach
  void close() {
    g.close();
  }

  private FlowControl flow(FlowSettings settings) {
    return new FlowControl(settings, TestGateway.settings().saturation().detector(g.clock), g.datastore(), g.clock,
        Runnable::run, null, (p, priority, outcome, waited) -> left.add(priority + " " + outcome + " " + waited));
  }

  private void saturated(boolean full) {
    for (int i = 1; i <= 2; i++) {
      g.scrapes.report(address(i), full ? 10 : 0, 4, 0.5, Set.of());
    }
  }

  @Test
  void requestsWaitWhileThePoolIsSaturatedAndLeaveHighestPriorityFirstWhenItHasRoom() {
    saturated(true);
    Ticket low = flow.enqueue(pools, 1, "a", 1, 1, 100, 0, s -> true);
    Ticket high = flow.enqueue(pools, 9, "b", 1, 1, 100, 0, s -> true);
    flow.signal();
    assertThat(flow.hasWaiting(PoolSet.of(pools))).isTrue();
    assertThat(flow.waiting(pool)).isEqualTo(2);
    assertThat(flow.waitingByPool()).containsEntry(PoolSet.of(pools), java.util.Map.of(9, 1, 1, 1));

    g.clock.advance(Duration.ofMillis(250));
    saturated(false);
    flow.signal();
    assertThat(high.outcome()).isCompletedWithValue(Optional.empty());
    assertThat(low.outcome()).isCompletedWithValue(Optional.empty());
    assertThat(left).containsExactly("9 dispatched 0.25", "1 dispatched 0.25");
    assertThat(flow.waiting(pool)).isZero();
  }

  @Test
  void aRequestWaitingPastItsTtlIsAnswered503() {
    FlowControl shortTtl = flow(TestGateway.settings().flow().withLimits(Duration.ofSeconds(1), 10, 1 << 20, 10,
        1 << 20));
    saturated(true);
    Ticket t = shortTtl.enqueue(pools, 1, "a", 1, 1, 100, 0, s -> true);
    g.clock.advance(Duration.ofMillis(999));
    shortTtl.signal();
    assertThat(t.outcome()).isNotDone();
    g.clock.advance(Duration.ofMillis(1));
    shortTtl.signal();
    assertThat(t.outcome().join()).map(r -> r.code().wire()).contains("queue_timeout");
    assertThat(left).containsExactly("1 expired 1.0");
  }

  @Test
  void aFullQueueEvictsTheLowerPriorityForANewcomerAndSaysWhy() {
    FlowControl small = flow(TestGateway.settings().flow().withLimits(Duration.ofSeconds(30), 1, 1 << 20, 1,
        1 << 20));
    saturated(true);
    Ticket low = small.enqueue(pools, 1, "a", 1, 1, 100, 0, s -> true);
    Ticket high = small.enqueue(pools, 9, "b", 1, 1, 100, 0, s -> true);
    assertThat(low.outcome().join()).hasValueSatisfying(r -> {
      assertThat(r.code().wire()).isEqualTo("evicted");
      assertThat(r.message()).contains("priority 1", "priority 9");
    });
    assertThat(high.outcome()).isNotDone();
    Ticket equal = small.enqueue(pools, 9, "b", 1, 1, 100, 0, s -> true);
    assertThat(equal.outcome().join()).map(r -> r.code().wire()).contains("queue_full");
  }

  @Test
  void aCancelledRequestLeavesAtOnceAndIsNeverDispatched() {
    saturated(true);
    Ticket t = flow.enqueue(pools, 1, "a", 1, 1, 100, 0, s -> true);
    t.cancel();
    t.cancel();
    assertThat(flow.waiting(pool)).isZero();
    saturated(false);
    flow.signal();
    assertThat(t.outcome()).isCancelled();
    assertThat(left).containsExactly("1 cancelled 0.0");
  }

  @Test
  void aRequestWhoseObjectiveCannotBeMetWaitsUnlessNothingOfOursRunsThere() {
    saturated(false);
    var busy = g.datastore().inFlight().acquire(address(1), "other");
    Ticket t = flow.enqueue(pools, 1, "a", 1, 1, 100, 0, s -> false);
    assertThat(t.outcome()).as("the pool has room, but no pod is predicted in time").isNotDone();
    busy.release();
    flow.signal();
    assertThat(t.outcome()).as("nothing of ours runs: waiting cannot help").isCompletedWithValue(Optional.empty());
  }

  @Test
  void routesSpanningPoolsHaveTheirOwnQueueCountedForEachPool() {
    try (TestGateway two = new TestGateway(1, FileModeYaml.pool("other", "x", TestGateway.PORT))) {
      FlowControl f = new FlowControl(TestGateway.settings().flow(),
          TestGateway.settings().saturation().detector(two.clock), two.datastore(), two.clock, Runnable::run, null,
          (p, priority, outcome, waited) -> {});
      List<PoolView> both = List.copyOf(two.datastore().topology().poolsByKey().values());
      f.enqueue(both, 1, "a", 1, 1, 10, 0, s -> true); // no pod reported: saturated
      assertThat(PoolSet.of(both).toString()).isEqualTo("default/pool,default/other");
      assertThat(f.waiting(new PoolKey("default", "other"))).isEqualTo(1);
      assertThat(f.waiting(new PoolKey("default", "pool"))).isEqualTo(1);
      assertThat(f.hasWaiting(PoolSet.of(both.subList(0, 1)))).as("a queue per set of pools").isFalse();
    }
  }
}
