package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.responseHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
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
 * Issue 48: an EPP configured with llm-d-router's own scorer file, driven over real ext_proc frames the way llm-d's
 * hermetic tests and GIE's conformance suite drive theirs (their cases restated as facts: pods' queue, KV use and
 * adapters, the request, the endpoint or refusal expected). Three pods at 127.0.0.{61,62,63}.
 */
class LlmdDropInTest {
  /** llm-d's hermetic default configuration, as its test data writes it (its openai-parser and requestHandler too). */
  static final String LLMD_DEFAULT = """
      apiVersion: inference.networking.x-k8s.io/v1alpha1
      kind: EndpointPickerConfig
      plugins:
        - type: queue-scorer
        - type: kv-cache-utilization-scorer
        - type: prefix-cache-scorer
        - type: lora-affinity-scorer
        - type: openai-parser
      schedulingProfiles:
        - name: default
          plugins:
            - pluginRef: queue-scorer
            - pluginRef: kv-cache-utilization-scorer
            - pluginRef: prefix-cache-scorer
            - pluginRef: lora-affinity-scorer
      requestHandler:
        parsers:
        - pluginRef: openai-parser
      """;

  static EppHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = new EppHarness(3, 61, s -> {
      try {
        return s.withScheduling(PluginConfigFile.parse("llm-d default-config.yaml", LLMD_DEFAULT, w -> {}))
            .withRequests(s.requests().withHooks(new WireHooks(true, true)));
      } catch (io.llmgw.api.ConfigException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  /** One pod's state as llm-d's cases give it: waiting queue, KV-cache use, running adapters (two slots each). */
  private static void pods(double[][] queueAndKv, List<List<String>> adapters) {
    for (int i = 0; i < 3; i++) {
      h.pods.get(i).setVllm((int) queueAndKv[i][0], 0, queueAndKv[i][1], 2, adapters.get(i), List.of());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      for (int i = 0; i < 3; i++) {
        var m = h.epp.datastore().scrapeState(h.pods.get(i).address()).metrics();
        if (m.waitingQueue() != (int) queueAndKv[i][0] || m.kvCacheUsage() != queueAndKv[i][1]) {
          return false;
        }
      }
      return true;
    });
  }

  private static ProcessingResponse route(String model, Map<String, String> extra) throws Exception {
    ExtProcCall call = h.open();
    Map<String, String> headers = new HashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions",
        "content-type", "application/json"));
    headers.putAll(extra);
    call.send(requestHeaders(headers, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(chat(model), true));
    ProcessingResponse r = call.next();
    call.cancel();
    return r;
  }

  private static String pod(int i) {
    return h.pods.get(i).address();
  }

  @Test
  void selectLowerQueueAndKvCache() throws Exception {
    pods(new double[][] {{3, 0.2}, {0, 0.1}, {10, 0.2}}, List.of(List.of(), List.of(), List.of()));
    assertThat(setHeader(route("base-model", Map.of()), EppProtocol.DESTINATION)).isEqualTo(pod(1));
  }

  @Test
  void selectTheAdaptersPodDespiteHigherKvCache() throws Exception {
    // llm-d's case: pod 0 runs two other adapters (its slots full), pod 1 the requested one, pod 2 one other
    pods(new double[][] {{1, 0.2}, {1, 0.4}, {1, 0.3}},
        List.of(List.of("shed-me", "split-v1"), List.of("adapter-a", "shed-me"), List.of("shed-me")));
    assertThat(setHeader(route("adapter-a", Map.of()), EppProtocol.DESTINATION)).isEqualTo(pod(1));
  }

  @Test
  void subsettingPicksTheBestOfTheSubsetAndRefusesAnEmptyOneWithLlmdsReason() throws Exception {
    pods(new double[][] {{0, 0.2}, {0, 0.1}, {4, 0.2}}, List.of(List.of(), List.of(), List.of()));
    String all = pod(0) + "," + pod(1) + "," + pod(2);
    assertThat(setHeader(route("base-model", Map.of(EppProtocol.TEST_ENDPOINT_SELECTION, all)),
        EppProtocol.DESTINATION)).as("select best from subset").isEqualTo(pod(1));
    assertThat(setHeader(route("base-model", Map.of(EppProtocol.TEST_ENDPOINT_SELECTION, pod(2))),
        EppProtocol.DESTINATION)).as("partial match: despite its load").isEqualTo(pod(2));
    String ipOnly = pod(2).substring(0, pod(2).lastIndexOf(':'));
    assertThat(setHeader(route("base-model", Map.of(EppProtocol.TEST_ENDPOINT_SELECTION, ipOnly)),
        EppProtocol.DESTINATION)).as("an IP alone allows any of its ports (data-parallel ranks)").isEqualTo(pod(2));
    ProcessingResponse none = route("base-model", Map.of(EppProtocol.TEST_ENDPOINT_SELECTION, "127.0.0.99:8000"));
    assertThat(none.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
    assertThat(dropReason(none)).isEqualTo("rejected-no-endpoints");
  }

  @Test
  void aBodyWithoutAModelIs400WithTheHeaderSayingWhy() throws Exception {
    ExtProcCall call = h.open();
    call.send(ExtProcCall.post("/v1/completions"));
    call.send(requestBody("{\"prompt\":\"hello world\"}", true));
    ProcessingResponse r = call.next();
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(400);
    assertThat(dropReason(r)).isEqualTo("rejected-bad-request");
    call.cancel();
  }

  @Test
  void theServedEndpointIsEchoedAndEveryCandidatesScoreIsInTheMetadata() throws Exception {
    pods(new double[][] {{0, 0.1}, {5, 0.5}, {2, 0.3}}, List.of(List.of(), List.of(), List.of()));
    ExtProcCall call = h.open();
    ProcessingResponse routed = ExtProcIntegrationTest.routeFullDuplex(call, chat("base-model"));
    var lb = routed.getDynamicMetadata().getFieldsOrThrow(EppProtocol.LB_NAMESPACE).getStructValue();
    var scores = lb.getFieldsOrThrow(EppProtocol.ENDPOINT_SCORES).getStructValue().getFieldsMap();
    assertThat(scores).containsOnlyKeys(pod(0), pod(1), pod(2));
    assertThat(scores.get(pod(0)).getNumberValue()).isGreaterThan(scores.get(pod(1)).getNumberValue());
    ExtProcIntegrationTest.drainRequestBody(call);
    call.send(responseHeaders(200, "text/event-stream", pod(0), false));
    ProcessingResponse answer = call.next();
    assertThat(answer.getResponseHeaders().getResponse().getHeaderMutation().getSetHeadersList())
        .anyMatch(o -> o.getHeader().getKey().equals(EppProtocol.TEST_SERVED_ENDPOINT)
            && o.getHeader().getRawValue().toStringUtf8().equals(pod(0)));
    call.cancel();
  }

  static String dropReason(ProcessingResponse r) {
    return r.getImmediateResponse().getHeaders().getSetHeadersList().stream()
        .filter(o -> o.getHeader().getKey().equals("x-llm-d-request-dropped-reason"))
        .map(o -> o.getHeader().getRawValue().toStringUtf8()).findFirst().orElse(null);
  }
}
