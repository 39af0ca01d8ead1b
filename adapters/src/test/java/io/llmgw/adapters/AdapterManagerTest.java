package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PodMetrics;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load path against real simulated vLLM pods. */
class AdapterManagerTest extends SimPodsTestBase {
  @Test
  void aMissLoadsTheAdapterOnAPodThatThenListsIt() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults());
    assertThat(m.residentOn("sql-v1", endpoints())).isEmpty();
    String address = m.ensureLoaded("sql-v1", "hf://org/sql-v1", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(models(address.split(":")[0])).containsExactly("sql-v1");
    assertThat(m.residentOn("sql-v1", endpoints())).containsExactly(address);
    assertThat(m.status(List.of("sql-v1", "other"), endpoints())).extracting(AdapterStatus::state)
        .containsExactly(AdapterStatus.State.LOADED, AdapterStatus.State.NOT_LOADED);
  }

  @Test
  void fiftyConcurrentRequestsForAColdAdapterShareOneLoad() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults());
    List<CompletableFuture<String>> waiters = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      waiters.add(CompletableFuture.supplyAsync(() -> m.ensureLoaded("chat", "hf://org/chat", this::endpoints))
          .thenCompose(f -> f));
    }
    Set<String> answers = new java.util.HashSet<>();
    for (CompletableFuture<String> w : waiters) {
      answers.add(w.get(10, TimeUnit.SECONDS));
    }
    assertThat(runtime.loads).as("one load for fifty requests").hasSize(1);
    assertThat(answers).hasSize(1);
  }

  @Test
  void aFailedLoadIsRetriedOnAnotherPodAndTheRequestFollowsIt() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults());
    runtime.brokenPods = Set.of(IPS.get(0) + ":8000", IPS.get(1) + ":8000");
    String address = m.ensureLoaded("flaky", "hf://org/flaky", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(address).isEqualTo(IPS.get(2) + ":8000");
    assertThat(runtime.loads).as("each pod tried at most once").doesNotHaveDuplicates().last()
        .isEqualTo("flaky@" + address);
    assertThat(m.status(List.of("flaky"), endpoints()).getFirst().state()).isEqualTo(AdapterStatus.State.LOADED);
  }

  @Test
  void anAdapterThatFailsEverywhereIsAnsweredAtOnceUntilItsFailureRecordExpires() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults());
    var load = m.ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThatThrownBy(() -> load.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LoadFailure.class)
        .hasMessageContaining("could not be loaded on 3 pods").hasMessageContaining("corrupt");
    assertThat(runtime.loads).hasSize(3);
    assertThat(m.status(List.of("broken"), endpoints()).getFirst().state())
        .isEqualTo(AdapterStatus.State.LOADING_FAILED);

    var again = m.ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThat(again).isCompletedExceptionally();
    assertThat(runtime.loads).as("no new attempt while the record lasts").hasSize(3);

    assertThat(m.failureRecords()).as("three pods and the adapter").isEqualTo(4);
    clock.advance(Duration.ofMinutes(15));
    m.reap(endpoints());
    assertThat(m.failureRecords()).as("the reaper took the expired records").isZero();
    var later = m.ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThatThrownBy(() -> later.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    assertThat(runtime.loads).as("retried by itself once the record expired").hasSize(6);
  }

  @Test
  void aFullPodUnloadsItsLeastRecentlyUsedIdleAdapterButNeverOneWithRequestsInFlight() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults().withCapacityPerPod(1));
    List<String> placed = new ArrayList<>();
    for (String a : List.of("a1", "a2", "a3")) {
      placed.add(m.ensureLoaded(a, "hf://org/" + a, this::endpoints).get(5, TimeUnit.SECONDS));
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(Set.copyOf(placed)).as("one adapter per pod while there is room").hasSize(3);
    inFlight.put(placed.get(0) + "/a1", 2);
    clock.advance(Duration.ofSeconds(1));
    m.used(placed.get(1), "a2");

    String where = m.ensureLoaded("a4", "hf://org/a4", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(where).as("a3's pod: a1 is busy and a2 was used more recently").isEqualTo(placed.get(2));
    assertThat(runtime.unloads).containsExactly("a3@" + placed.get(2));
    assertThat(m.residentOn("a1", endpoints())).containsExactly(placed.get(0));
    assertThat(models(placed.get(2).split(":")[0])).containsExactly("a4");
  }

  @Test
  void aPinnedAdapterIsNeverTheOneEvictedEvenWhenItIsTheLeastRecentlyUsed() throws Exception {
    AdapterManager m = manager(AdapterSettings.defaults().withCapacityPerPod(1));
    List<String> placed = new ArrayList<>();
    for (String a : List.of("p1", "p2", "p3")) {
      placed.add(m.ensureLoaded(a, "hf://org/" + a, this::endpoints).get(5, TimeUnit.SECONDS));
      clock.advance(Duration.ofSeconds(1));
    }
    m.pin("p1"); // the oldest: LRU would take it
    String where = m.ensureLoaded("p4", "hf://org/p4", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(where).isEqualTo(placed.get(1));
    assertThat(runtime.unloads).containsExactly("p2@" + placed.get(1));
    assertThat(m.dropCopies("p1", 0, endpoints())).as("nor scaled down").isZero();
  }

  @Test
  void loadsWaitingForASlotGoRequestsFirstThenFillsWhateverTheirArrival() throws Exception {
    AdapterManager m = manager(new AdapterSettings(Duration.ofSeconds(10), 3, Duration.ofMinutes(15), 8, 1, true, 0));
    java.util.function.Supplier<List<EndpointState>> onePod = () -> endpoints().subList(0, 1);
    var first = m.ensureLoaded("q-a", "hf://org/q-a", onePod);
    var fill = m.fill("q-b", "hf://org/q-b", onePod);
    var request = m.ensureLoaded("q-c", "hf://org/q-c", onePod);
    CompletableFuture.allOf(first, fill, request).get(10, TimeUnit.SECONDS);
    assertThat(runtime.loads).as("one slot: the request overtakes the fill that queued before it")
        .containsExactly("q-a@" + IPS.get(0) + ":8000", "q-c@" + IPS.get(0) + ":8000", "q-b@" + IPS.get(0) + ":8000");
  }
}
