package io.llmgw.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ModelMesh runtime SPI against simulated pods serving it on their runtime port, beside vLLM's HTTP API. */
class MmeshRuntimeTest {
  static String models(String address) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + address + "/v1/models"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void adaptersAreLoadedAndUnloadedThroughTheSpiAndFailuresCarryTheRuntimesStatus() throws Exception {
    try (SimPods pods = SimPods.start(SimConfig.builder().loraLatency(50, 5).runtimePort(8033).build(),
        List.of("127.0.0.185"), 8000);
        MmeshRuntime runtime = new MmeshRuntime(8033, Duration.ofSeconds(5))) {
      String pod = pods.pods().getFirst().address();
      runtime.load(pod, "mm-lora", "s3://models/mm-lora").get(5, TimeUnit.SECONDS);
      assertThat(models(pod)).as("what the SPI loaded, vLLM's API lists").contains("\"mm-lora\"");
      runtime.load(pod, "mm-lora", "s3://models/mm-lora").get(5, TimeUnit.SECONDS); // loading twice is fine

      assertThatThrownBy(() -> runtime.load(pod, "bad-lora", "s3://models/bad-fail").get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause().isInstanceOf(LoadFailure.class)
          .hasMessageContaining("INTERNAL").hasMessageContaining("corrupt");
      assertThatThrownBy(() -> runtime.load(pod, "gone-lora", "s3://models/missing").get(5, TimeUnit.SECONDS))
          .cause().hasMessageContaining("NOT_FOUND");

      runtime.unload(pod, "mm-lora").get(5, TimeUnit.SECONDS);
      assertThat(models(pod)).doesNotContain("\"mm-lora\"");
      runtime.unload(pod, "mm-lora").get(5, TimeUnit.SECONDS); // unloading what is not loaded is fine too
      assertThat(runtime.capacity(pod).get(5, TimeUnit.SECONDS)).as("capacity over default size: max-cpu-loras")
          .hasValue(SimConfig.builder().build().maxCpuLoras());
    }
  }

  @Test
  void theLoadQueuePagesThroughTheSpiAsThroughVllmsApi() throws Exception {
    try (SimPods pods = SimPods.start(SimConfig.builder().loraLatency(50, 5).runtimePort(8033).build(),
        List.of("127.0.0.186", "127.0.0.187"), 8000);
        MmeshRuntime runtime = new MmeshRuntime(8033, Duration.ofSeconds(5))) {
      Adapters m = Adapters.create(runtime, AdapterSettings.defaults(), java.time.Clock.systemUTC(),
          AdapterEvents.NONE);
      var endpoints = pods.pods().stream().map(p -> new io.llmgw.picker.EndpointState(
          new io.llmgw.picker.Endpoint("pool", p.address(), p.address().split(":")[0], 8000),
          io.llmgw.picker.PodMetrics.unknown(), true, io.llmgw.picker.InFlight.NONE)).toList();
      String where = m.loads().ensureLoaded("spi-lora", "s3://models/spi-lora", () -> endpoints).get(5,
          TimeUnit.SECONDS);
      assertThat(models(where)).contains("\"spi-lora\"");
    }
  }
}
