package io.llmgw.adapters;

import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PodMetrics;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.testing.ManualClock;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Three real simulated vLLM pods (runtime LoRA API over HTTP, 100 ms loads), emptied before each test. */
abstract class SimPodsTestBase {
  static final List<String> IPS = List.of("127.0.0.171", "127.0.0.172", "127.0.0.173");
  static SimPods pods;
  ManualClock clock;
  CountingRuntime runtime;
  Map<String, Integer> inFlight;
  /** The parts under test: their registry corrects what {@link #endpoints()} report, as the EPP's datastore does. */
  Adapters adapters;

  @BeforeAll
  static void startPods() throws Exception {
    pods = SimPods.start(SimConfig.builder().loraLatency(100, 10).build(), IPS, 8000);
  }

  @AfterAll
  static void stopPods() throws Exception {
    pods.close();
  }

  @BeforeEach
  void fresh() throws Exception {
    clock = new ManualClock(Instant.parse("2026-11-22T10:00:00Z"));
    runtime = new CountingRuntime(new VllmRuntime(Duration.ofSeconds(5)));
    inFlight = new java.util.concurrent.ConcurrentHashMap<>();
    for (String ip : IPS) {
      for (String a : models(ip)) {
        runtime.real.unload(ip + ":8000", a).get(5, TimeUnit.SECONDS);
      }
    }
  }

  Adapters adapters(AdapterSettings settings) {
    adapters = Adapters.create(runtime, settings, clock, AdapterEvents.NONE);
    return adapters;
  }

  /** The reachable pods holding {@code adapter}, as the EPP sees them now. */
  java.util.Set<String> holders(String adapter) {
    return io.llmgw.picker.Residency.holders(adapter, endpoints());
  }

  /** The pods as the EPP would see them, what they hold read from their model lists as the scraper does. */
  List<EndpointState> endpoints() {
    List<EndpointState> out = new ArrayList<>();
    for (String ip : IPS) {
      PodMetrics reported;
      try {
        reported = new PodMetrics(0, 0, 0, 4, Set.of(), Set.of(), Set.copyOf(models(ip)), Set.of("base"),
            Instant.EPOCH);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      out.add(new EndpointState(new Endpoint("pool", ip, ip, 8000), reported, true, new InFlight() {
        @Override
        public int forModel(String model) {
          return inFlight.getOrDefault(ip + ":8000/" + model, 0);
        }

        @Override
        public int total() {
          return 0;
        }

        @Override
        public int sentSince(java.time.Instant reportedAt) {
          return 0;
        }
      }, adapters == null ? io.llmgw.picker.AdapterChanges.NONE : adapters.registry()));
    }
    return out;
  }

  static List<String> models(String ip) throws Exception {
    String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + ip + ":8000/v1/models"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    List<String> out = new ArrayList<>();
    for (var m : new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).path("data")) {
      if (m.hasNonNull("parent")) {
        out.add(m.path("id").asText());
      }
    }
    return out;
  }

}
