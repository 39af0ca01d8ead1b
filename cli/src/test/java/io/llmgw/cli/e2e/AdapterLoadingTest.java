package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.bench.load.EppMetricsText;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.observe.AdminAccess;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Adapters as data through the whole gateway (dev proxy, EPP, three simulated vLLM pods whose runtime LoRA API takes
 * 300 ms per load): a route target with a {@code source} that no pod holds is loaded on demand, once for everyone who
 * wants it; a load that fails everywhere is a 503 naming the adapter and the error; a restarted EPP learns from the
 * pods what they hold and loads nothing again.
 */
class AdapterLoadingTest {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static String config(SimPods pods) {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("sim-pool", "sim", 8000));
    yaml.append(FileModeYaml.SEPARATOR)
        .append(FileModeYaml.loadableRoute("cold", "sim-pool", "cold-lora", "cold-lora-v1", "hf://org/cold-lora-v1"))
        .append(FileModeYaml.SEPARATOR)
        .append(
            FileModeYaml.loadableRoute("broken", "sim-pool", "broken-lora", "broken-lora-v1", "hf://org/broken-fail"))
        .append(FileModeYaml.SEPARATOR)
        .append(FileModeYaml.loadableRoute("warm", "sim-pool", "warm-lora", "warm-lora-v1", "hf://org/warm-lora-v1"));
    yaml.append(FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    return yaml.toString();
  }

  static HttpResponse<String> chat(int port, String model) throws Exception {
    String body = "{\"model\":\"" + model
        + "\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
        .timeout(Duration.ofSeconds(60)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static double metric(Epp epp, String series) throws Exception {
    return EppMetricsText.value(EppMetricsText.scrape(epp), series);
  }

  static HttpResponse<String> get(Epp epp, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + epp.metricsPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static List<String> holders(SimPods pods, String adapter) throws Exception {
    List<String> out = new ArrayList<>();
    for (var pod : pods.pods()) {
      String models = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + pod.address() + "/v1/models")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      if (models.contains("\"" + adapter + "\"")) {
        out.add(pod.address());
      }
    }
    return out;
  }

  @Test
  void aColdAdapterIsLoadedOnceForFiftyConcurrentRequestsAndARestartedEppFindsItOnThePod() throws Exception {
    SimPods pods = SimPods.start(SimConfig.builder().loraLatency(300, 10).build(),
        List.of("127.0.0.175", "127.0.0.176", "127.0.0.177"), 8000);
    Path file = Files.createTempFile("adapters", ".yaml");
    Files.writeString(file, config(pods));
    EppSettings settings = EppSettings.defaults(file).onLoopbackEphemeralPorts();
    settings = settings.withListen(settings.listen().withAdmin(AdminAccess.of(ADMIN_TOKEN, null)));
    try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(CompletableFuture.supplyAsync(() -> {
          try {
            return chat(rig.proxyPort(), "cold-lora");
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }));
      }
      for (var call : calls) {
        HttpResponse<String> r = call.get(60, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"model\":\"cold-lora\"");
      }
      assertThat(holders(pods, "cold-lora-v1")).as("one copy, on one pod").hasSize(1);
      assertThat(metric(rig.epp(), "llmgw_adapter_loads_total{result=\"ok\"}")).as("one load for 50 requests")
          .isEqualTo(1.0);
      assertThat(metric(rig.epp(), "llmgw_adapter_cache_miss_wait_seconds_count")).isGreaterThanOrEqualTo(1.0);

      HttpResponse<String> broken = chat(rig.proxyPort(), "broken-lora");
      assertThat(broken.statusCode()).isEqualTo(503);
      assertThat(broken.body()).contains("broken-lora-v1", "could not be loaded on 3 pods", "corrupt");
      assertThat(metric(rig.epp(), "llmgw_adapter_loads_total{result=\"failed\"}")).isEqualTo(3.0);
      HttpResponse<String> again = chat(rig.proxyPort(), "broken-lora");
      assertThat(again.statusCode()).isEqualTo(503);
      assertThat(again.body()).as("answered from the failure record").contains("tried again 15 min after that");
      assertThat(metric(rig.epp(), "llmgw_adapter_loads_total{result=\"failed\"}")).isEqualTo(3.0);

      String admin = get(rig.epp(), "/admin/adapters").body();
      assertThat(admin).contains("\"name\":\"cold-lora-v1\",\"state\":\"LOADED\",\"copies\":1")
          .contains("\"name\":\"broken-lora-v1\",\"state\":\"LOADING_FAILED\"", "corrupt")
          .as("the registry pod by pod, with the failure on each pod tried")
          .contains("\"pods\":[", "\"capacity\":8", "\"failed\":{\"broken-lora-v1\":");
      assertThat(metric(rig.epp(), "llmgw_adapter_lru_age_seconds")).isGreaterThanOrEqualTo(0.0);
      assertThat(metric(rig.epp(), "llmgw_adapters_resident{endpoint=\"" + holders(pods, "cold-lora-v1").getFirst()
          + "\"}")).isEqualTo(1.0);
      assertThat(ensureLoaded(rig, "nope", ADMIN_TOKEN).statusCode()).isEqualTo(404);
      var refused = ensureLoaded(rig, "warm-lora-v1", "wrong-token");
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.body()).doesNotContain(ADMIN_TOKEN);
      assertThat(ensureLoaded(rig, "warm-lora-v1", null).statusCode()).isEqualTo(401);
      var warm = ensureLoaded(rig, "warm-lora-v1", ADMIN_TOKEN);
      assertThat(warm.statusCode()).as(warm.body()).isEqualTo(200);
      assertThat(warm.body()).contains("\"state\":\"LOADED\",\"copies\":1");
      assertThat(holders(pods, "warm-lora-v1")).as("an operator warmed it before any request").hasSize(1);
      for (int i = 0; i < 3; i++) { // issue 15: it ensures a copy, it does not add one each time
        assertThat(ensureLoaded(rig, "warm-lora-v1", ADMIN_TOKEN).body()).contains("\"copies\":1");
      }
      assertThat(holders(pods, "warm-lora-v1")).hasSize(1);

      try (Epp restarted = Epp.start(settings, Clock.systemUTC());
          DevProxy proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
              .withEpp("127.0.0.1", restarted.grpcPort()))) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> pods.pods().stream()
            .allMatch(p -> restarted.datastore().scrapeState(p.address()).metrics().baseModels().size() > 0));
        for (int i = 0; i < 5; i++) {
          assertThat(chat(proxy.port(), "cold-lora").statusCode()).isEqualTo(200);
        }
        assertThat(metric(restarted, "llmgw_adapter_cache_misses_total")).as("residency came from the pods").isZero();
        assertThat(metric(restarted, "llmgw_adapter_loads_total{result=\"ok\"}")).isZero();
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  static String rollRoute(String version) {
    return FileModeYaml.loadableRoute("roll", "sim-pool", "roll-lora", version, "hf://org/" + version);
  }

  @Test
  void aRolloutLoadsTheNewVersionFirstSoNoRequestWaitsAndUnloadsTheOldOneWhenIdle() throws Exception {
    SimPods pods = SimPods.start(SimConfig.builder().loraLatency(500, 10).build(),
        List.of("127.0.0.181", "127.0.0.182"), 8000);
    Path file = Files.createTempFile("rollout", ".yaml");
    String base = FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.pod("sim-0", "sim", "127.0.0.181") + FileModeYaml.SEPARATOR
        + FileModeYaml.pod("sim-1", "sim", "127.0.0.182") + FileModeYaml.SEPARATOR;
    Files.writeString(file, base + rollRoute("roll-v1"));
    try (Rig rig = Rig.start(pods, EppSettings.defaults(file).onLoopbackEphemeralPorts(),
        ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      assertThat(chat(rig.proxyPort(), "roll-lora").statusCode()).isEqualTo(200);
      assertThat(metric(rig.epp(), "llmgw_adapter_cache_misses_total")).isEqualTo(1.0);
      assertThat(holders(pods, "roll-v1")).hasSize(1);
      String spare = pods.pods().stream().map(p -> p.address()).filter(a -> {
        try {
          return !holders(pods, "roll-v1").contains(a);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }).findFirst().orElseThrow();
      var operatorCopy = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + spare + "/v1/load_lora_adapter"))
          .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
              "{\"lora_name\":\"roll-v1\",\"lora_path\":\"hf://org/roll-v1\"}"))
          .build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(operatorCopy.statusCode()).isEqualTo(200);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> rig.epp().datastore()
          .scrapeState(spare).metrics().listedAdapters().contains("roll-v1"));

      Files.writeString(file, base + rollRoute("roll-v2"));
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> rig.epp().datastore().topology()
          .routesByModel().get("roll-lora").route().adapter().targets().getFirst().name().equals("roll-v2"));
      for (int i = 0; i < 10; i++) {
        HttpResponse<String> r = chat(rig.proxyPort(), "roll-lora");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"model\":\"roll-lora\"");
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15))
          .until(() -> holders(pods, "roll-v2").size() == 2 && holders(pods, "roll-v1").isEmpty());
      for (int i = 0; i < 5; i++) {
        assertThat(chat(rig.proxyPort(), "roll-lora").statusCode()).isEqualTo(200);
      }
      assertThat(metric(rig.epp(), "llmgw_adapter_cache_misses_total"))
          .as("no request waited for the new version's load").isEqualTo(1.0);
      assertThat(metric(rig.epp(), "llmgw_adapter_cache_miss_wait_seconds_count")).isEqualTo(1.0);
      assertThat(metric(rig.epp(), "llmgw_adapter_loads_total{result=\"ok\"}"))
          .as("v1 once, v2 to the two copies v1 had").isEqualTo(3.0);
      assertThat(metric(rig.epp(), "llmgw_adapter_unloads_total")).as("v1 from both pods").isEqualTo(2.0);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void withTheModelMeshRuntimeSpiTheSameRequestLoadsItsAdapterOverGrpc() throws Exception {
    SimPods pods = SimPods.start(SimConfig.builder().loraLatency(100, 10).runtimePort(8034).build(),
        List.of("127.0.0.188", "127.0.0.189"), 8000);
    Path file = Files.createTempFile("mmesh", ".yaml");
    Files.writeString(file, FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.pod("sim-0", "sim", "127.0.0.188") + FileModeYaml.SEPARATOR
        + FileModeYaml.pod("sim-1", "sim", "127.0.0.189") + FileModeYaml.SEPARATOR
        + FileModeYaml.loadableRoute("mm", "sim-pool", "mm-lora", "mm-lora-v1", "s3://models/mm-lora-v1"));
    EppSettings settings = EppSettings.defaults(file).onLoopbackEphemeralPorts()
        .withAdapters(io.llmgw.adapters.AdapterSettings.defaults().withMmeshPort(8034));
    try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      HttpResponse<String> r = chat(rig.proxyPort(), "mm-lora");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(holders(pods, "mm-lora-v1")).hasSize(1);
      assertThat(metric(rig.epp(), "llmgw_adapter_loads_total{result=\"ok\"}")).isEqualTo(1.0);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  static final String ADMIN_TOKEN = "s3cret-admin-token";

  static HttpResponse<String> ensureLoaded(Rig rig, String adapter, String token) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rig.epp().metricsPort()
        + "/admin/adapters/" + adapter + ":ensureLoaded")).POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }
}
