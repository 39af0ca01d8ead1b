package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.EndpointState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Loads against real simulated vLLM pods: shared, placed, retried, remembered when they fail, queued by priority. */
class LoadQueueTest extends SimPodsTestBase {
  @Test
  void aMissLoadsTheAdapterOnAPodThatThenListsIt() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    assertThat(holders("sql-v1")).isEmpty();
    String address = m.loads().ensureLoaded("sql-v1", "hf://org/sql-v1", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(models(address.split(":")[0])).containsExactly("sql-v1");
    assertThat(holders("sql-v1")).containsExactly(address);
    assertThat(m.report().status(List.of("sql-v1", "other"), endpoints())).extracting(AdapterStatus::state)
        .containsExactly(AdapterStatus.State.LOADED, AdapterStatus.State.NOT_LOADED);
  }

  @Test
  void ensuringAnAdapterAPodHoldsLoadsNothing() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    String address = m.loads().ensureLoaded("warm", "hf://org/warm", this::endpoints).get(5, TimeUnit.SECONDS);
    for (int i = 0; i < 3; i++) {
      assertThat(m.loads().ensureLoaded("warm", "hf://org/warm", this::endpoints).get(5, TimeUnit.SECONDS))
          .isEqualTo(address);
    }
    assertThat(runtime.loads).as("one copy ensured, none added").hasSize(1);
    assertThat(holders("warm")).containsExactly(address);
  }

  @Test
  void fiftyConcurrentRequestsForAColdAdapterShareOneLoad() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    List<CompletableFuture<String>> waiters = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      waiters.add(CompletableFuture.supplyAsync(() -> m.loads().ensureLoaded("chat", "hf://org/chat", this::endpoints))
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
    Adapters m = adapters(AdapterSettings.defaults());
    runtime.brokenPods = Set.of(IPS.get(0) + ":8000", IPS.get(1) + ":8000");
    String address = m.loads().ensureLoaded("flaky", "hf://org/flaky", this::endpoints).get(5, TimeUnit.SECONDS);
    assertThat(address).isEqualTo(IPS.get(2) + ":8000");
    assertThat(runtime.loads).as("each pod tried at most once").doesNotHaveDuplicates().last()
        .isEqualTo("flaky@" + address);
    assertThat(m.report().status(List.of("flaky"), endpoints()).getFirst().state())
        .isEqualTo(AdapterStatus.State.LOADED);
  }

  @Test
  void anAdapterThatFailsEverywhereIsAnsweredAtOnceUntilItsFailureRecordExpires() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults());
    var load = m.loads().ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThatThrownBy(() -> load.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LoadFailure.class)
        .hasMessageContaining("could not be loaded on 3 pods").hasMessageContaining("corrupt");
    assertThat(runtime.loads).hasSize(3);
    assertThat(m.report().status(List.of("broken"), endpoints()).getFirst().state())
        .isEqualTo(AdapterStatus.State.LOADING_FAILED);

    var again = m.loads().ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThat(again).isCompletedExceptionally();
    assertThat(runtime.loads).as("no new attempt while the record lasts").hasSize(3);

    assertThat(m.failures().size()).as("three pods and the adapter").isEqualTo(4);
    clock.advance(Duration.ofMinutes(15));
    m.reaper().reap(endpoints());
    assertThat(m.failures().size()).as("the reaper took the expired records").isZero();
    var later = m.loads().ensureLoaded("broken", "hf://org/broken-fail", this::endpoints);
    assertThatThrownBy(() -> later.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    assertThat(runtime.loads).as("retried by itself once the record expired").hasSize(6);
  }

  @Test
  void loadsWaitingForASlotGoRequestsFirstThenFillsWhateverTheirArrival() throws Exception {
    Adapters m = adapters(AdapterSettings.defaults().withLoadWaitTimeout(Duration.ofSeconds(10)).withLoadingPerPod(1));
    java.util.function.Supplier<List<EndpointState>> onePod = () -> endpoints().subList(0, 1);
    CompletableFuture<Void> gate = new CompletableFuture<>();
    runtime.gate = gate; // the first load holds the slot until both others have queued
    var first = m.loads().ensureLoaded("q-a", "hf://org/q-a", onePod);
    var fill = m.loads().fill("q-b", "hf://org/q-b", onePod);
    var request = m.loads().ensureLoaded("q-c", "hf://org/q-c", onePod);
    gate.complete(null);
    CompletableFuture.allOf(first, fill, request).get(10, TimeUnit.SECONDS);
    assertThat(runtime.loads).as("one slot: the request overtakes the fill that queued before it")
        .containsExactly("q-a@" + IPS.get(0) + ":8000", "q-c@" + IPS.get(0) + ":8000", "q-b@" + IPS.get(0) + ":8000");
  }
}
