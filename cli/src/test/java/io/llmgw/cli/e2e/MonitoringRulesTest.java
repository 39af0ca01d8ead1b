package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, item 3: the shipped dashboard and alerts on a real Prometheus (Debian's, which .ci/run installs) scraping a
 * running EPP and simulated pods on loopback. promtool accepts the rules; Prometheus evaluates every rule without
 * error; every dashboard query returns data; and the alerts for the faults this test makes (a second EPP target that
 * is down, a pod that is gone, an adapter whose loads fail) return data too.
 */
class MonitoringRulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path MONITORING = Path.of("..", "deploy", "monitoring");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir
  Path dir;

  @Test
  void everyDashboardQueryReturnsDataAndEveryAlertEvaluatesOnARealPrometheus() throws Exception {
    assumeTrue(Gateways.onPath("prometheus") && Gateways.onPath("promtool"),
        "prometheus is not installed (.ci/run installs it)");
    Path rules = dir.resolve("llmgw.rules.yml");
    Files.writeString(rules, new YAMLMapper().writeValueAsString(
        new YAMLMapper().readTree(MONITORING.resolve("prometheusrule.yaml").toFile()).get("spec")));
    Process check = new ProcessBuilder("promtool", "check", "rules", rules.toString()).redirectErrorStream(true)
        .start();
    String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(check.exitValue()).as(checked).isZero();
    assertThat(checked).contains("SUCCESS: 6 rules found");

    SimPods pods = SimPods.start(SimConfig.builder().adapters(List.of("sql-lora", "chat-lora")).loras(2, 2)
        .decode(5, 0.2).build(), List.of("127.0.0.221", "127.0.0.222"), LoopbackPorts.free());
    Path config = dir.resolve("pool.yaml");
    Rig.writeConfig(config, pods, List.of(Gateways.BASE, "sql-lora"));
    Files.writeString(config, Files.readString(config) + FileModeYaml.SEPARATOR + """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: chat}
        spec:
          backendRefs: [{name: sim-pool}]
          adapter:
            name: chat-lora
            objectives: [{type: TimeToFirstToken, latency: {value: 1s, quantile: {numerator: 90}}}]
        """ + FileModeYaml.SEPARATOR
        + FileModeYaml.loadableRoute("broken", "sim-pool", "broken-lora", "broken-lora-v1", "hf://org/broken-fail")
        + FileModeYaml.SEPARATOR + FileModeYaml.pod("gone", "sim", "127.0.0.229"));
    try (Rig rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts(),
        ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      int promPort = LoopbackPorts.free();
      int downEpp = LoopbackPorts.free();
      Path promConfig = dir.resolve("prometheus.yml");
      Files.writeString(promConfig, """
          global: {scrape_interval: 1s, evaluation_interval: 1s}
          rule_files: [%s]
          scrape_configs:
            - job_name: llmgw-epp
              static_configs: [{targets: ["127.0.0.1:%d", "127.0.0.1:%d"]}]
            - job_name: vllm
              static_configs: [{targets: [%s]}]
          """.formatted(rules, rig.epp().metricsPort(), downEpp,
          String.join(", ", pods.podAddresses().stream().map(a -> "\"" + a + "\"").toList())));
      Process prometheus = new ProcessBuilder("prometheus", "--config.file=" + promConfig,
          "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort)
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
      try {
        String base = "http://127.0.0.1:" + promPort;
        await().atMost(Duration.ofSeconds(30)).until(() -> status(base + "/-/ready") == 200);
        for (int i = 0; i < 30; i++) {
          chat(rig.proxyPort(), i % 3 == 0 ? Gateways.BASE : i % 3 == 1 ? "sql-lora" : "chat-lora");
        }
        // a counter's first sample shows no increase: the failures must come after Prometheus saw none
        await().atMost(Duration.ofSeconds(30)).until(() -> result(base,
            "llmgw_adapter_loads_total{result=\"failed\"} == 0").size() > 0);
        chat(rig.proxyPort(), "broken-lora"); // a failed load on every pod it is tried on

        List<String> queries = new ArrayList<>();
        for (JsonNode panel : JSON.readTree(MONITORING.resolve("llmgw-dashboard.json").toFile()).get("panels")) {
          panel.get("targets").forEach(t -> queries.add(t.get("expr").asText()));
        }
        assertThat(queries).hasSizeGreaterThanOrEqualTo(12);
        for (String q : queries) {
          await(q).atMost(Duration.ofSeconds(30)).until(() -> result(base, q).size() > 0);
        }
        JsonNode groups = get(base + "/api/v1/rules").get("data").get("groups");
        List<String> alerts = new ArrayList<>();
        for (JsonNode g : groups) {
          for (JsonNode r : g.get("rules")) {
            assertThat(r.get("health").asText()).as(r.get("name").asText() + ": " + r.path("lastError").asText())
                .isEqualTo("ok");
            alerts.add(r.get("name").asText());
            assertThat(result(base, r.get("query").asText())).as("%s evaluates", r.get("name").asText()).isNotNull();
          }
        }
        assertThat(alerts).hasSize(6);
        for (String firing : List.of("LlmgwEppDown", "LlmgwPodScrapesFailing", "LlmgwAdapterLoadsFailing")) {
          String expr = ruleQuery(groups, firing);
          await(firing).atMost(Duration.ofSeconds(30)).until(() -> result(base, expr).size() > 0);
        }
      } finally {
        prometheus.destroy();
        prometheus.waitFor(20, TimeUnit.SECONDS);
        prometheus.destroyForcibly();
      }
    }
  }

  private static String ruleQuery(JsonNode groups, String name) {
    for (JsonNode g : groups) {
      for (JsonNode r : g.get("rules")) {
        if (r.get("name").asText().equals(name)) {
          return r.get("query").asText();
        }
      }
    }
    throw new AssertionError("no rule " + name);
  }

  private static void chat(int port, String model) throws Exception {
    HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
        .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\",\"max_tokens\":4,\"messages\":"
            + "[{\"role\":\"user\",\"content\":\"hello\"}]}"))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int status(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (Exception e) {
      return 0;
    }
  }

  private static JsonNode get(String url) throws Exception {
    return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()).body());
  }

  /** The instant query's result vector; the query must succeed. */
  private static JsonNode result(String base, String query) throws Exception {
    JsonNode r = get(base + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    assertThat(r.get("status").asText()).as(query + ": " + r.path("error").asText()).isEqualTo("success");
    return r.get("data").get("result");
  }
}
