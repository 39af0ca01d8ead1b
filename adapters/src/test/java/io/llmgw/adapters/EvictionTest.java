package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Unloading on real simulated pods: room for a load, draining a version, fewer copies; never a busy or pinned one. */
class EvictionTest extends SimPodsTestBase {
  @Test
  void aFullPodUnloadsItsLeastRecentlyUsedIdleAdapterButNeverOneWithRequestsInFlight() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults().withCapacityPerPod(1));
    List<String> placed = new ArrayList<>();
    for (String a : List.of("a1", "a2", "a3")) {
      placed.add(m.loads().ensureLoaded(a, "hf://org/" + a, this::endpoints).get(5, TimeUnit.SECONDS));
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(Set.copyOf(placed)).as("one adapter per pod while there is room").hasSize(3);
    inFlight.put(placed.get(0) + "/a1", 2);
    clock.advance(Duration.ofSeconds(1));
    m.usage().used(placed.get(1), "a2");

    String where = m.loads().ensureLoaded("a4", "hf://org/a4", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(where).as("a3's pod: a1 is busy and a2 was used more recently").isEqualTo(placed.get(2));
    assertThat(runtime.unloads).containsExactly("a3@" + placed.get(2));
    assertThat(holders("a1")).containsExactly(placed.get(0));
    assertThat(models(placed.get(2).split(":")[0])).containsExactly("a4");
  }

  @Test
  void aPinnedAdapterIsNeverTheOneEvictedEvenWhenItIsTheLeastRecentlyUsed() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults().withCapacityPerPod(1));
    List<String> placed = new ArrayList<>();
    for (String a : List.of("p1", "p2", "p3")) {
      placed.add(m.loads().ensureLoaded(a, "hf://org/" + a, this::endpoints).get(5, TimeUnit.SECONDS));
      clock.advance(Duration.ofSeconds(1));
    }
    m.pins().pin("p1"); // the oldest: LRU would take it
    String where = m.loads().ensureLoaded("p4", "hf://org/p4", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(where).isEqualTo(placed.get(1));
    assertThat(runtime.unloads).containsExactly("p2@" + placed.get(1));
    assertThat(m.eviction().dropCopies("p1", 0, endpoints())).as("nor scaled down").isZero();
  }

  @Test
  void drainingUnloadsIdleCopiesAndCountsTheBusyOnesThatStay() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    String first = m.loads().ensureLoaded("old", "hf://org/old", this::endpoints).get(5, TimeUnit.SECONDS);
    String second = m.loads().addCopy("old", "hf://org/old", this::endpoints).get(5, TimeUnit.SECONDS);
    inFlight.put(second + "/old", 1);

    assertThat(m.eviction().unloadWhereIdle("old", endpoints())).as("one copy is busy").isEqualTo(1);
    assertThat(holders("old")).as("the idle copy is out of picking at once").containsExactly(second);
    await().atMost(Duration.ofSeconds(5)).until(() -> models(first.split(":")[0]).isEmpty());

    inFlight.clear();
    assertThat(m.eviction().unloadWhereIdle("old", endpoints())).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> models(second.split(":")[0]).isEmpty());
    assertThat(runtime.unloads).containsExactlyInAnyOrder("old@" + first, "old@" + second);
  }

  @Test
  void scalingDownKeepsTheMostRecentlyUsedCopies() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    List<String> copies = new ArrayList<>();
    copies.add(m.loads().ensureLoaded("hot", "hf://org/hot", this::endpoints).get(5, TimeUnit.SECONDS));
    copies.add(m.loads().addCopy("hot", "hf://org/hot", this::endpoints).get(5, TimeUnit.SECONDS));
    copies.add(m.loads().addCopy("hot", "hf://org/hot", this::endpoints).get(5, TimeUnit.SECONDS));
    clock.advance(Duration.ofSeconds(1));
    m.usage().used(copies.get(1), "hot");

    assertThat(m.eviction().dropCopies("hot", 1, endpoints())).isEqualTo(2);
    assertThat(holders("hot")).containsExactly(copies.get(1));
    assertThat(Set.copyOf(runtime.unloads)).containsExactlyInAnyOrder("hot@" + copies.get(0), "hot@" + copies.get(2));
  }
}
