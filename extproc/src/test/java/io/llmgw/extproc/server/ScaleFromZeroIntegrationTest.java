package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.scraper.FakeModelServer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 52, a pool at zero, end to end over real ext_proc frames: a request for a pool that may scale to zero waits in
 * flow control while the plan asks for a pod, and is routed to the first pod once it is ready; with none in time it is
 * answered 503 with the reason; a pool that may not scale to zero answers 503 at once as before.
 */
class ScaleFromZeroIntegrationTest {
  static final String COLD = FileModeYaml.SEPARATOR + """
      apiVersion: inference.networking.k8s.io/v1
      kind: InferencePool
      metadata:
        name: cold-pool
        annotations: {llmgw.io/min-replicas: "0", llmgw.io/pod-load-time: 5s, llmgw.io/cost-per-pod-hour: "2.5"}
      spec: {selector: {matchLabels: {app: cold}}, targetPorts: [{number: %d}]}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: cold}
      spec: {backendRefs: [{name: cold-pool}], adapter: {name: cold-model}}
      """;

  private EppHarness h;
  private FakeModelServer coldPod;

  @AfterEach
  void stop() throws Exception {
    if (coldPod != null) {
      coldPod.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private ExtProcCall send(String model) {
    return send(model, Map.of());
  }

  private ExtProcCall send(String model, Map<String, String> headers) {
    ExtProcCall call = h.open();
    Map<String, String> all = new HashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions"));
    all.putAll(headers);
    call.send(requestHeaders(all, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(ExtProcIntegrationTest.chat(model), true));
    return call;
  }

  private PoolPlan coldPlan() {
    return h.epp.status().capacity().pools().stream().filter(p -> p.pool().name().equals("cold-pool")).findFirst()
        .orElse(null);
  }

  @Test
  void theFirstRequestWaitsWhileAPodIsAskedForAndIsServedByTheFirstPodReady() throws Exception {
    h = new EppHarness(1, 201, COLD.formatted(8000), s -> s);
    ExtProcCall waiting = send("cold-model");
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      PoolPlan p = coldPlan();
      return p != null && p.desired() == 1;
    });
    assertThat(waiting.answered()).as("held while the pool has no pod").isFalse();
    assertThat(coldPlan().reason()).contains("+1 pod", "1 request waits for a pool at zero");
    assertThat(h.metricsText())
        .contains("llmgw_pool_desired_replicas{inference_pool=\"cold-pool\",namespace=\"default\"} 1.0")
        .contains("llmgw_pool_planned_cost_per_hour{inference_pool=\"cold-pool\",namespace=\"default\"} 2.5");
    assertThat(h.metricsPort("/admin/capacity")).contains("\"default/cold-pool\"", "waits for a pool at zero");

    // the cluster starts a pod; it becomes ready and is listed
    coldPod = new FakeModelServer("127.0.0.209", 0);
    coldPod.setModels("cold-model", List.of());
    Files.writeString(h.configFile, h.yaml(EppHarness.ROUTES) + COLD.formatted(coldPod.port())
        + FileModeYaml.SEPARATOR + FileModeYaml.pod("cold-0", "cold", "127.0.0.209"));
    ProcessingResponse routed = waiting.next();
    assertThat(setHeader(routed, EppProtocol.DESTINATION)).as(routed.toString()).isEqualTo(coldPod.address());
    waiting.cancel();
  }

  /**
   * A sheddable request (the batch service's) for a pool at zero is not refused as if the pool were full: it waits
   * like any other, so a pool only batches use wakes; {@code /admin/load} tells the batch service the pool is at zero.
   */
  @Test
  void aSheddableRequestWakesAPoolAtZeroInsteadOfA429() throws Exception {
    String batch = FileModeYaml.SEPARATOR + """
        apiVersion: inference.networking.x-k8s.io/v1alpha2
        kind: InferenceObjective
        metadata: {name: batch}
        spec: {priority: -1, poolRef: {name: cold-pool}}
        """;
    h = new EppHarness(1, 231, COLD.formatted(8000) + batch, s -> s);
    assertThat(h.metricsPort("/admin/load")).contains("\"pool\":\"default/cold-pool\"", "\"atZero\":true");
    ExtProcCall waiting = send("cold-model", Map.of(EppProtocol.OBJECTIVE, "batch"));
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      PoolPlan p = coldPlan();
      return p != null && p.desired() == 1;
    });
    assertThat(waiting.answered()).as("held, not shed").isFalse();
    coldPod = new FakeModelServer("127.0.0.232", 0);
    coldPod.setModels("cold-model", List.of());
    Files.writeString(h.configFile, h.yaml(EppHarness.ROUTES) + COLD.formatted(coldPod.port()) + batch
        + FileModeYaml.SEPARATOR + FileModeYaml.pod("cold-0", "cold", "127.0.0.232"));
    ProcessingResponse routed = waiting.next();
    assertThat(setHeader(routed, EppProtocol.DESTINATION)).as(routed.toString()).isEqualTo(coldPod.address());
    assertThat(h.metricsPort("/admin/load")).contains("\"atZero\":false");
    waiting.cancel();
  }

  @Test
  void withNoPodReadyWithinTheTtlTheRequestIsAnswered503WithTheReason() throws Exception {
    h = new EppHarness(1, 211, COLD.formatted(8000), s -> s.withFlow(FlowSettings.defaults()
        .withLimits(Duration.ofSeconds(1), 10_000, 1L << 30, 5_000, 512L << 20), s.saturation()));
    ProcessingResponse r = send("cold-model").next();
    assertThat(r.hasImmediateResponse()).as(r.toString()).isTrue();
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
    String body = r.getImmediateResponse().getBody().toStringUtf8();
    assertThat(ExtProcIntegrationTest.errorField(body, "code")).isEqualTo("no_ready_endpoint");
    assertThat(ExtProcIntegrationTest.errorField(body, "message")).contains("scaled to zero", "within 1 s");
    assertThat(r.getImmediateResponse().getHeaders().getSetHeadersList()).anyMatch(o -> o.getHeader().getKey()
        .equals("x-llm-d-request-dropped-reason")
        && o.getHeader().getRawValue().toStringUtf8().equals("rejected-no-endpoints"));
    assertThat(h.metricsText())
        .contains("llmgw_flow_requests_total{outcome=\"expired\",pool=\"default/cold-pool\",priority=\"0\"} 1.0");
  }

  @Test
  void aPoolThatMayNotScaleToZeroAnswers503AtOnce() throws Exception {
    h = new EppHarness(1, 221, s -> s);
    long start = System.nanoTime();
    ProcessingResponse r = send("orphan-model").next();
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
    assertThat(System.nanoTime() - start).as("not held for the flow TTL (30 s)").isLessThan(20_000_000_000L);
  }
}
