package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.extproc.control.FileConfigSource;
import io.llmgw.extproc.observe.HealthServer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** File mode as a control loop: live edits, rejected edits, pods leaving, failing pods, health. */
class ControlLoopTest {
  EppHarness h;

  @BeforeEach
  void start() throws Exception {
    h = new EppHarness(2, 51, s -> s.withRequests(s.requests().withDestinationFallbacks(true)));
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  ProcessingResponse route(String model) throws InterruptedException {
    ExtProcCall call = h.open();
    call.send(post("/v1/completions"));
    call.send(requestBody("{\"model\":\"" + model + "\",\"prompt\":\"x\"}", true));
    ProcessingResponse r = call.next();
    call.cancel();
    return r;
  }

  /** Two polls in a row see the edit: it has settled and is applied (or rejected). */
  private void settle() {
    FileConfigSource source = (FileConfigSource) h.epp.configSource();
    source.poll();
    source.poll();
  }

  /**
   * Issue 16: a route whose model no pod lists (and that names no source to load it from) is answered by the EPP, 503
   * naming the model, instead of being sent to a pod that answers its own 404.
   */
  @Test
  void aRoutedModelNoPodServesIsAnsweredByTheEppRatherThanAPodsNotFound() throws Exception {
    Files.writeString(h.configFile, h.yaml(EppHarness.ROUTES + """
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: ghost}
        spec: {backendRefs: [{name: sim-pool}], adapter: {name: ghost-model}}
        """));
    await().atMost(Duration.ofSeconds(10))
        .until(() -> route("ghost-model").getImmediateResponse().getStatus().getCodeValue() == 503);
    assertThat(route("ghost-model").getImmediateResponse().getBody().toStringUtf8())
        .contains("no_ready_endpoint", "no reachable endpoint serves 'ghost-model'");
    assertThat(route("base-model").hasRequestHeaders()).as("a model the pods list still routes").isTrue();
  }

  /**
   * Issue 30: pods that load an adapter on their own when a request names it (vLLM's LoRA resolver plugins) are
   * declared so on their pool, and then an adapter no pod lists is routed to them; a garbage value for the annotation
   * is a rejected configuration that names it.
   */
  @Test
  void aPoolWhosePodsResolveAdaptersThemselvesGetsAnAdapterNoPodLists() throws Exception {
    String ghost = EppHarness.ROUTES + """
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: ghost}
        spec: {backendRefs: [{name: sim-pool}], adapter: {name: ghost-model}}
        """;
    Files.writeString(h.configFile, h.yaml(ghost));
    await().atMost(Duration.ofSeconds(10))
        .until(() -> route("ghost-model").getImmediateResponse().getStatus().getCodeValue() == 503);

    String pool = "metadata: {name: sim-pool}";
    String resolving = "metadata: {name: sim-pool, annotations: {"
        + io.llmgw.api.InferencePool.ADAPTERS_RESOLVED_BY_SERVER
        + ": \"true\"}}";
    assertThat(h.yaml(ghost)).contains(pool);
    Files.writeString(h.configFile, h.yaml(ghost).replace(pool, resolving));
    await().atMost(Duration.ofSeconds(10)).until(() -> route("ghost-model").hasRequestHeaders());
    assertThat(ExtProcCall.metadataDestination(route("ghost-model")).split(","))
        .allMatch(a -> h.pods.stream().anyMatch(p -> p.address().equals(a)));

    Files.writeString(h.configFile, h.yaml(ghost).replace(pool, resolving.replace("true", "yes")));
    settle();
    assertThat(h.metricsText()).contains("llmgw_config_rejected_total 1.0");
  }

  @Test
  void aValidEditAppliesWithoutRestartAndAnInvalidOneKeepsTheLastGood() throws Exception {
    assertThat(route("late-model").getImmediateResponse().getStatus().getCodeValue()).isEqualTo(404);
    h.pods.forEach(p -> p.setModels("base-model", List.of("adapter-a", "split-v1", "shed-me", "late-model")));

    Files.writeString(h.configFile, h.yaml(EppHarness.ROUTES + """
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: late}
        spec: {backendRefs: [{name: sim-pool}], adapter: {name: late-model}}
        """));
    await().atMost(Duration.ofSeconds(10)).until(() -> route("late-model").hasRequestHeaders());

    Files.writeString(h.configFile, h.yaml(EppHarness.ROUTES).replace("priority: 5", "priority: five"));
    settle();

    assertThat(h.metricsText()).contains("llmgw_config_rejected_total 1.0");
    assertThat(route("late-model").hasRequestHeaders()).as("last good configuration still routes").isTrue();

    // issue 32, item 3: /admin/status says what each edit changed and why the last one was refused, newest first
    var configuration = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(h.metricsPort("/admin/status")).path("configuration");
    assertThat(configuration.get(0).path("refused").asText()).contains("field spec.adapter.priority (line ",
        "must be an integer");
    assertThat(configuration.get(1).path("changed").asText()).isEqualTo("routes +default/late");
    assertThat(configuration.get(2).path("changed").asText()).startsWith("pools +default/empty-pool +default/sim-pool; "
        + "routes +default/base");
  }

  @Test
  void aPodRemovedFromTheFileLeavesPickingAtOnceAndItsMetricSeriesGo() throws Exception {
    String leaving = h.pods.get(1).address();
    h.pods.get(1).setStatus(500);
    await().atMost(Duration.ofSeconds(10))
        .until(() -> h.metricsText().contains("llmgw_scrape_errors_total{endpoint=\"" + leaving + "\""));
    String yaml = h.yaml(EppHarness.ROUTES);
    String withoutPod1 = yaml.substring(0, yaml.lastIndexOf("---"));
    Files.writeString(h.configFile, withoutPod1);
    settle();

    for (int i = 0; i < 10; i++) {
      assertThat(ExtProcCall.metadataDestination(route("adapter-a"))).doesNotContain(leaving);
    }
    assertThat(h.metricsText()).doesNotContain(leaving);
  }

  @Test
  void aPodWhoseScrapesFailIsNotPickedUntilItAnswersAgain() throws Exception {
    String failing = h.pods.get(0).address();
    h.pods.get(0).setStatus(503);
    await().atMost(Duration.ofSeconds(10)).until(() -> !h.epp.datastore().scrapeState(failing).healthy());

    for (int i = 0; i < 10; i++) {
      assertThat(ExtProcCall.metadataDestination(route("adapter-a"))).isEqualTo(h.pods.get(1).address());
    }
    h.pods.get(0).setStatus(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.epp.datastore().scrapeState(failing).healthy());
    assertThat(ExtProcCall.metadataDestination(route("adapter-a"))).as("back among the candidates").contains(failing);
  }

  @Test
  void healthReportsLivenessReadinessAndTheExtProcService() {
    var channel = NettyChannelBuilder.forAddress("127.0.0.1", h.epp.healthPort()).usePlaintext().build();
    try {
      var health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(Duration.ofSeconds(5));
      for (String service : new String[] {"", "liveness", "readiness", HealthServer.EXT_PROC_SERVICE}) {
        assertThat(health.check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus())
            .as(service).isEqualTo(ServingStatus.SERVING);
      }
    } finally {
      channel.shutdownNow();
    }
  }
}
