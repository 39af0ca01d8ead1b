package io.llmgw.picker;

import static io.llmgw.picker.Pods.active;
import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.config.PolicyShorthand;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code --policy seed}: the lora-packing scorer under max-score picking. */
class SeedPolicyTest {
  final SchedulingProfile seed = Profiles.of(PolicyShorthand.SEED, 3, new Random(7));

  @Test
  void packsOntoTheLoadedPodWithTheMostPendingBelowTheThreshold() {
    var p1 = pod(1, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 1));
    var p2 = pod(2, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 2));
    var p3 = pod(3, metrics(0, 0, Set.of()), new Pods.Pending());

    Decision d = picked(List.of(p1, p2, p3));

    assertThat(d.primary()).isSameAs(p2);
    assertThat(d.fallbacks()).containsExactly(p1, p3);
  }

  @Test
  void atTheThresholdTheNextLoadedPodTakesOver() {
    var full = pod(1, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 3));
    var next = pod(2, metrics(0, 0, Set.of("a")), new Pods.Pending().set("a", 0));
    var cold = pod(3, metrics(0, 0, Set.of()), new Pods.Pending());

    assertThat(picked(List.of(full, next, cold)).primary()).isSameAs(next);
  }

  @Test
  void withoutALoadedPodBelowThresholdTakesFewestActiveAdaptersThenLeastPending() {
    var full = pod(1, active(Set.of("a"), Set.of("a")), new Pods.Pending().set("a", 3));
    var busy = pod(2, active(Set.of("x", "y"), Set.of("x", "y")), new Pods.Pending().set("x", 1));
    var light = pod(3, active(Set.of("x", "y"), Set.of("x")), new Pods.Pending().set("x", 5));
    var lighter = pod(4, active(Set.of("x", "y"), Set.of("y")), new Pods.Pending().set("y", 2));

    Decision d = picked(List.of(full, busy, light, lighter));

    assertThat(d.primary()).isSameAs(lighter);
    assertThat(d.fallbacks()).containsExactly(full, light);
  }

  @Test
  void baseModelRequestsAreNotPackedButGoToTheLeastBusyPod() {
    var p1 = pod(1, metrics(0, 0, Set.of()), new Pods.Pending().set("base", 2));
    var p2 = pod(2, metrics(0, 0, Set.of()), new Pods.Pending().set("base", 1));
    var p3 = pod(3, active(Set.of("a"), Set.of("a")), new Pods.Pending());
    assertThat(Profiles.picked(seed, PickRequest.of("base"), List.of(p1, p2, p3)).ranked())
        .containsExactly(p2, p1, p3);
  }

  @Test
  void aNewAdapterGoesWhereTheBatchHasTheFewestAdaptersNotWhereChanceSendsIt() {
    // "a" is resident everywhere with nothing pending: the packing rule ties, the batch's adapters decide
    var crowded = pod(1, active(Set.of("a", "x", "y"), Set.of("x", "y")), new Pods.Pending());
    var half = pod(2, active(Set.of("a", "x", "y"), Set.of("x")), new Pods.Pending());
    var idle = pod(3, active(Set.of("a", "x", "y"), Set.of()), new Pods.Pending().set("x", 1));
    for (int i = 0; i < 20; i++) {
      assertThat(picked(List.of(crowded, half, idle)).ranked()).containsExactly(idle, half, crowded);
    }
  }

  @Test
  void anAdapterTheGatewayJustLoadedCountsAsHeldBeforeThePodReportsIt() {
    AdapterChanges loadedOnP2 = new AdapterChanges() {
      @Override
      public Boolean lately(String address, String adapter) {
        return address.equals("127.0.0.2:8000") && adapter.equals("a") ? Boolean.TRUE : null;
      }

      @Override
      public Set<String> loadedLately(String address) {
        return address.equals("127.0.0.2:8000") ? Set.of("a") : Set.of();
      }
    };
    var p1 = pod(1, metrics(0, 0, Set.of()), new Pods.Pending());
    var p2 = new EndpointState(pod(2, null, InFlight.NONE).endpoint(), metrics(0, 0, Set.of()), true,
        new Pods.Pending(), loadedOnP2);
    assertThat(picked(List.of(p1, p2)).primary()).isSameAs(p2);
  }

  /**
   * Issue 30: vLLM lists every registered adapter on every pod, so listing says nothing about where the adapter runs.
   * It packs where it is active: running (or waiting) by the report, run there lately while no other adapters filled
   * the slots, or in flight from this gateway; only then by fewest batch adapters.
   */
  @Test
  void anAdapterListedEverywhereGoesWhereItIsActiveNotWhereTheBatchIsEmptiest() {
    Set<String> all = Set.of("a", "b", "c");
    var running = pod(1, active(all, Set.of("a")), new Pods.Pending());
    var idle = pod(2, active(all, Set.of()), new Pods.Pending());
    assertThat(picked(List.of(idle, running)).primary()).as("running there by the report").isSameAs(running);

    var warm = pod(3, new PodMetrics(0, 0, 0, 2, Set.of("b"), Set.of(), all, Set.of("base"), Pods.NOW, Set.of("a"),
        Set.of()), new Pods.Pending());
    assertThat(picked(List.of(idle, warm)).primary()).as("ran there lately, a slot still free").isSameAs(warm);

    var evicted = pod(4, new PodMetrics(0, 0, 0, 2, Set.of("b", "c"), Set.of(), all, Set.of("base"), Pods.NOW,
        Set.of("a"), Set.of()), new Pods.Pending());
    assertThat(picked(List.of(idle, evicted)).primary()).as("two others took both slots since").isSameAs(idle);

    var inFlight = pod(5, active(all, Set.of("b")), new Pods.Pending().set("a", 1));
    assertThat(picked(List.of(idle, inFlight)).primary()).as("this gateway's own request for it is there")
        .isSameAs(inFlight);
  }

  /**
   * Issue 30 and 48: a pod where the adapter only waits for a slot the batch's other adapters hold is no place for more
   * of its requests; a pod whose queue is long with other adapters' requests keeps the adapter's affinity (nothing
   * waits there for it, as the pod reports), and one that names the adapter waiting counts the queue against it.
   */
  @Test
  void aPodWhereTheAdapterWaitsIsChargedItsQueueAndOtherAdaptersQueuesDoNotTakeAffinityAway() {
    Set<String> all = Set.of("a", "b", "c", "d", "e");
    var idle = pod(1, active(all, Set.of()), new Pods.Pending());
    var slotsTaken = pod(2, new PodMetrics(1, 8, 0, 4, Set.of("b", "c", "d", "e"), Set.of("a"), all, Set.of("base"),
        Pods.NOW), new Pods.Pending());
    assertThat(picked(List.of(idle, slotsTaken)).primary()).isSameAs(idle);
    var othersQueued = pod(3, new PodMetrics(3, 8, 0, 4, Set.of("a"), Set.of("b"), all, Set.of("base"), Pods.NOW),
        new Pods.Pending());
    assertThat(picked(List.of(idle, othersQueued)).primary()).as("3 waiting, none of them for a")
        .isSameAs(othersQueued);
    var aQueued = pod(4, new PodMetrics(3, 8, 0, 4, Set.of("a"), Set.of("a"), all, Set.of("base"), Pods.NOW),
        new Pods.Pending());
    assertThat(picked(List.of(idle, aQueued)).primary()).as("3 waiting for a: the threshold here").isSameAs(idle);
    var shared = pod(5, new PodMetrics(4, 8, 0, 4, Set.of("a", "b"), Set.of("a", "b"), all, Set.of("base"), Pods.NOW),
        new Pods.Pending());
    assertThat(picked(List.of(idle, shared)).primary()).as("4 waiting for two adapters: 2 for a").isSameAs(shared);
  }

  private Decision picked(List<EndpointState> pool) {
    return Profiles.picked(seed, PickRequest.of("a"), pool);
  }
}
