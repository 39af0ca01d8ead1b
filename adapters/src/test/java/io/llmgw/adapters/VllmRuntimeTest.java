package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two EPP replicas load the same adapter on one pod at once (a real simulated vLLM server, 300 ms loads): the second
 * is told "already loaded" while the first runs, and ends as the first does, not at its own timeout.
 */
class VllmRuntimeTest {
  static SimPods pod;
  static String address;

  @BeforeAll
  static void start() throws Exception {
    pod = SimPods.start(SimConfig.builder().loraLatency(300, 0).build(), List.of("127.0.0.178"), 8000);
    address = pod.podAddresses().getFirst();
  }

  @AfterAll
  static void stop() throws Exception {
    pod.close();
  }

  @Test
  void aLoadThatFindsAnotherUnderWayFailsWithItsErrorWhenItFails() throws Exception {
    VllmRuntime first = new VllmRuntime(Duration.ofSeconds(60));
    VllmRuntime second = new VllmRuntime(Duration.ofSeconds(60));
    CompletableFuture<Void> a = first.load(address, "broken-a", "hf://org/broken-fail");
    CompletableFuture<Void> b = second.load(address, "broken-a", "hf://org/broken-fail");
    for (CompletableFuture<Void> f : List.of(a, b)) {
      // bounded far below the runtime's 60 s: the second must not wait for its timeout
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .hasMessageContaining("corrupt");
    }
  }

  @Test
  void aLoadThatFindsAnotherUnderWayCompletesWhenTheAdapterIsListed() throws Exception {
    VllmRuntime first = new VllmRuntime(Duration.ofSeconds(60));
    VllmRuntime second = new VllmRuntime(Duration.ofSeconds(60));
    CompletableFuture<Void> a = first.load(address, "good-b", "hf://org/good-b");
    CompletableFuture<Void> b = second.load(address, "good-b", "hf://org/good-b");
    a.get(10, TimeUnit.SECONDS);
    b.get(10, TimeUnit.SECONDS);
    assertThat(b).isCompleted();
    first.unload(address, "good-b").get(10, TimeUnit.SECONDS);
  }
}
