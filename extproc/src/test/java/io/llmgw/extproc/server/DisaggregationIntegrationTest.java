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
import io.llmgw.picker.config.SchedulingConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Disaggregated serving in the Endpoint Picker Protocol's own terms (real gRPC, real ext_proc frames, real HTTP pods):
 * a pool of one prefill pod (127.0.0.88) and two decode pods (127.0.0.89-90) under llm-d's prefill and decode profiles
 * as {@code examples/plugins-pd.yaml} configures them.
 * A long prompt is routed to a decode pod and names the prefill pod in {@code x-prefiller-host-port}; a short one is
 * routed alone; a client's own {@code x-prefiller-host-port} never survives, whatever the EPP decides.
 */
class DisaggregationIntegrationTest {
  /** The shipped example, as an operator would pass it to {@code --plugins-config}. */
  static final Path EXAMPLE = Path.of("..", "examples", "plugins-pd.yaml");

  EppHarness h;

  @BeforeEach
  void start() throws Exception {
    SchedulingConfig pd = PluginConfigFile.load(EXAMPLE, w -> {
      throw new AssertionError(w);
    });
    h = new EppHarness(3, 88, "", List.of("prefill", "decode", "decode"), s -> s.withScheduling(pd));
    // the decode pods run full batches: a long prompt prefilled there would stall them
    h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
    h.pods.get(1).setVllm(0, 16, 0.3, 4, List.of(), List.of());
    h.pods.get(2).setVllm(0, 16, 0.3, 4, List.of(), List.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> h.epp.datastore().scrapeState(h.pods.get(2).address())
        .metrics().running() == 16);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  /** Routes a chat request whose prompt is {@code words} words, with the client's own prefill header. */
  ProcessingResponse route(ExtProcCall call, int words) throws InterruptedException {
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", "content-type",
        "application/json", EppProtocol.PREFILLER, "127.0.0.99:80"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"base-model\",\"messages\":[{\"role\":\"user\",\"content\":\""
        + "lorem ipsum ".repeat(words / 2) + "\"}],\"stream\":true}", true));
    return call.next();
  }

  static List<String> removed(ProcessingResponse r) {
    var common = r.hasRequestHeaders() ? r.getRequestHeaders().getResponse() : r.getRequestBody().getResponse();
    return common.getHeaderMutation().getRemoveHeadersList();
  }

  @Test
  void aLongPromptIsPrefilledOnThePrefillPodAndDecodedOnADecodePod() throws Exception {
    ExtProcCall call = h.open();
    ProcessingResponse r = route(call, 4_000);
    String decode = setHeader(r, EppProtocol.DESTINATION);
    assertThat(decode).isIn(h.pods.get(1).address(), h.pods.get(2).address());
    assertThat(setHeader(r, EppProtocol.PREFILLER)).as("the EPP's value, not the client's")
        .isEqualTo(h.pods.get(0).address());
    assertThat(removed(r)).doesNotContain(EppProtocol.PREFILLER);
    // the prompt's prefill counts on the prefill pod until the first token, the request on both
    assertThat(h.epp.datastore().inFlight().load(h.pods.get(0).address()).prefillTokens()).isPositive();
    assertThat(h.epp.datastore().inFlight().load(decode).prefillTokens()).isZero();
    call.cancel();
    await().atMost(Duration.ofSeconds(10)).until(() -> h.inFlight(h.pods.get(0).address()) == 0
        && h.inFlight(decode) == 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.metricsText()
        .contains("llmgw_disaggregation_decisions_total{decision=\"split\"} 1.0"));
  }

  @Test
  void aShortPromptIsServedWholeAndTheClientsHeaderIsRemoved() throws Exception {
    ExtProcCall call = h.open();
    ProcessingResponse r = route(call, 20);
    assertThat(setHeader(r, EppProtocol.DESTINATION)).isNotEqualTo(h.pods.get(0).address());
    assertThat(setHeader(r, EppProtocol.PREFILLER)).isNull();
    assertThat(removed(r)).contains(EppProtocol.PREFILLER);
    call.cancel();
  }
}
