package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: a gateway file written as a team on llm-d's router has it: an InferencePool, llm-d's InferenceObjectives
 * and InferenceModelRewrite (as llm-d's hermetic test data writes them), and no LLMRoute, scheduled with llm-d's
 * hermetic default scorers. Driven over real ext_proc frames against two real HTTP pods at 127.0.0.{71,72}, as llm-d's
 * hermetic cases drive theirs (their cases restated as facts).
 */
class LlmdObjectsTest {
  static final String LLMD_OBJECTS = """
      ---
      apiVersion: llm-d.ai/v1alpha2
      kind: InferenceObjective
      metadata: {name: inference-objective-with-priority-4, namespace: default}
      spec: {priority: 4, poolRef: {name: sim-pool}}
      ---
      apiVersion: llm-d.ai/v1alpha2
      kind: InferenceModelRewrite
      metadata: {name: rewrite-test, namespace: default}
      spec:
        poolRef: {name: sim-pool}
        rules:
        - matches:
          - model: {value: model-to-be-rewritten}
          targets:
          - modelRewrite: rewritten-model
      """;

  static EppHarness h;

  @BeforeAll
  static void start() throws Exception {
    // llm-d's hermetic default scorers (queue, KV-cache use, prefix, LoRA affinity): its expected winners depend on them
    h = new EppHarness(2, 71, "", LLMD_OBJECTS, List.of(), s -> {
      try {
        return s.withScheduling(PluginConfigFile.parse("llm-d default-config.yaml", LlmdDropInTest.LLMD_DEFAULT,
            w -> {}));
      } catch (io.llmgw.api.ConfigException e) {
        throw new IllegalStateException(e);
      }
    });
    for (var p : h.pods) {
      p.setModels("base-model", List.of("rewritten-model", "direct-model"));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> h.pods.stream().allMatch(p -> h.epp.datastore()
        .scrapeState(p.address()).metrics().baseModels().contains("base-model")
        && h.epp.datastore().scrapeState(p.address()).metrics().reportsAdapter("direct-model")));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  private static ProcessingResponse buffered(String body, Map<String, String> extra) throws Exception {
    ExtProcCall call = h.open();
    Map<String, String> headers = new HashMap<>(Map.of(":method", "POST", ":path", "/v1/completions"));
    headers.putAll(extra);
    call.send(requestHeaders(headers, false, BodySendMode.BUFFERED, null));
    assertThat(call.next().hasRequestHeaders()).isTrue();
    call.send(requestBody(body, true));
    ProcessingResponse r = call.next();
    call.cancel();
    return r;
  }

  private static String sentBody(ProcessingResponse r) {
    return r.getRequestBody().getResponse().getBodyMutation().getBody().toStringUtf8();
  }

  @Test
  void llmdsRewriteCaseSendsTheRewrittenModelToThePodThatServesIt() throws Exception {
    ProcessingResponse r = buffered(
        "{\"max_tokens\":100,\"model\":\"model-to-be-rewritten\",\"prompt\":\"test-rewrite\","
            + "\"temperature\":0}",
        Map.of());
    assertThat(setHeader(r, EppProtocol.DESTINATION)).isIn(h.pods.get(0).address(), h.pods.get(1).address());
    assertThat(sentBody(r)).contains("\"model\":\"rewritten-model\"").contains("\"prompt\":\"test-rewrite\"");
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(h.metricsText()).contains(
        "llmgw_requests_total{code=\"cancelled\",model=\"model-to-be-rewritten\",priority=\"0\",target=\"rewritten-model\"}"));
  }

  @Test
  void aPoolNoRouteNamesServesEveryModelItsPodsReportWithTheObjectivesPriority() throws Exception {
    // llm-d's passthrough case: a model no rewrite names goes to the pool unchanged, at the objective's priority
    ProcessingResponse r = buffered("{\"max_tokens\":100,\"model\":\"direct-model\",\"prompt\":\"test6\","
        + "\"temperature\":0}", Map.of(EppProtocol.OBJECTIVE, "inference-objective-with-priority-4"));
    assertThat(setHeader(r, EppProtocol.DESTINATION)).isNotNull();
    assertThat(r.getRequestBody().getResponse().hasBodyMutation()).as("the body passes unchanged").isFalse();
    var topology = h.epp.datastore().topology();
    assertThat(h.epp.datastore().route(topology, "direct-model")).as("made once per configuration, not per request")
        .isSameAs(h.epp.datastore().route(topology, "direct-model"));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(h.metricsText()).contains(
        "llmgw_requests_total{code=\"cancelled\",model=\"direct-model\",priority=\"4\",target=\"direct-model\"}"));
  }

  @Test
  void aModelNoPodReportsIsStill404WithItsDropReason() throws Exception {
    ProcessingResponse r = buffered("{\"model\":\"nobody-serves-this\",\"prompt\":\"x\"}", Map.of());
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(404);
    assertThat(LlmdDropInTest.dropReason(r)).isNotNull();
  }

  /** llm-d's "invalid json body": a 400 with llm-d's reason. */
  @Test
  void llmdsInvalidJsonCaseIsA400WithItsDropReason() throws Exception {
    ProcessingResponse r = buffered("no healthy upstream", Map.of());
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(400);
    assertThat(LlmdDropInTest.dropReason(r)).isEqualTo("rejected-bad-request");
  }

  /** llm-d's "split body across chunks": two pods alike but for KV-cache use, the body in two chunks mid-name. */
  @Test
  void llmdsSplitBodyCaseRoutesToTheLessLoadedPod() throws Exception {
    h.pods.get(0).setVllm(4, 0, 0.2, 2, List.of(), List.of());
    h.pods.get(1).setVllm(4, 0, 0.85, 2, List.of(), List.of());
    // the other cases' requests released (a count still in flight would add to one pod's queue), then the pods' state
    await().atMost(Duration.ofSeconds(10)).until(() -> h.pods.stream().allMatch(p -> h.inFlight(p.address()) == 0)
        && h.epp.datastore().scrapeState(h.pods.get(1).address()).metrics().kvCacheUsage() == 0.85
        && h.epp.datastore().scrapeState(h.pods.get(0).address()).metrics().waitingQueue() == 4);
    try {
      ExtProcCall call = h.open();
      call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions", EppProtocol.OBJECTIVE,
          "inference-objective-with-priority-4"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
      call.send(requestBody("{\"max_tokens\":100,\"model\":\"direct-", false));
      // llm-d's prompt is test6, which the passthrough case here sent already: the prefix scorer would follow it
      call.send(requestBody("model\",\"prompt\":\"test-split\",\"temperature\":0}", true));
      assertThat(setHeader(call.next(), EppProtocol.DESTINATION)).isEqualTo(h.pods.get(0).address());
      call.cancel();
    } finally {
      h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 2, List.of(), List.of()));
    }
  }

  /** llm-d's "response streaming: SSE token counting": the usage in a streamed response's last event is counted. */
  @Test
  void llmdsSseUsageCaseCountsTheTokens() throws Exception {
    ExtProcCall call = h.open();
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"rewritten-model\",\"prompt\":\"count me\",\"stream\":true}", true));
    String pod = setHeader(call.next(), EppProtocol.DESTINATION);
    ExtProcIntegrationTest.drainRequestBody(call);
    call.send(ExtProcCall.responseHeaders(200, "text/event-stream", pod, false));
    assertThat(call.next().hasResponseHeaders()).isTrue();
    call.send(ExtProcCall.responseBody("data: {}\n\n", false));
    call.next();
    call.send(ExtProcCall.responseBody("data: {\"usage\":{\"prompt_tokens\":7,\"total_tokens\":17,"
        + "\"completion_tokens\":10}}\n\ndata: [DONE]\n\n", false));
    call.next();
    call.send(ExtProcCall.responseBody("", true));
    call.next();
    call.end();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(h.metricsText())
        .contains("llmgw_tokens_total{kind=\"prompt\",model=\"rewritten-model\"} 7.0")
        .contains("llmgw_tokens_total{kind=\"completion\",model=\"rewritten-model\"} 10.0"));
  }
}
