package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.flow.controller.PoolScaling;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Flow control end to end: a real EPP over real HTTP pods whose metrics the test sets, real ext_proc frames. The pool
 * is saturated by the pods' own reports (10 waiting each, the limit is 5).
 */
class FlowControlIntegrationTest {
  private static final String POOL = "default/sim-pool";
  private EppHarness h;

  @AfterEach
  void stop() throws Exception {
    if (h != null) {
      h.close();
    }
  }

  private void saturate() {
    h.pods.forEach(p -> p.setVllm(10, 4, 0.5, 4, List.of(), List.of()));
    h.awaitQueue(10);
  }

  private int waiting() {
    return h.epp.status().pools().stream().filter(p -> p.pool().toString().equals(POOL)).mapToInt(PoolScaling::waiting)
        .sum();
  }

  private ExtProcCall send(String model, Map<String, String> extraHeaders) {
    ExtProcCall call = h.open();
    Map<String, String> headers = new java.util.HashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions"));
    headers.putAll(extraHeaders);
    call.send(requestHeaders(headers, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(ExtProcIntegrationTest.chat(model), true));
    return call;
  }

  private static void assertImmediate(ProcessingResponse r, int status, String code, String messagePart) {
    assertThat(r.hasImmediateResponse()).as(r.toString()).isTrue();
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(status);
    assertThat(ExtProcIntegrationTest.errorField(r.getImmediateResponse().getBody().toStringUtf8(), "code"))
        .isEqualTo(code);
    assertThat(ExtProcIntegrationTest.errorField(r.getImmediateResponse().getBody().toStringUtf8(), "message"))
        .contains(messagePart);
    // issue 48: llm-d's header says why, in llm-d's words where llm-d has them
    String reason = switch (code) {
      case "pool_saturated", "queue_full" -> "rejected-saturated";
      case "evicted" -> "evicted";
      case "queue_timeout" -> "rejected-ttl-expired";
      default -> "rejected-bad-request";
    };
    assertThat(r.getImmediateResponse().getHeaders().getSetHeadersList()).anyMatch(o -> o.getHeader().getKey()
        .equals("x-llm-d-request-dropped-reason") && o.getHeader().getRawValue().toStringUtf8().equals(reason));
    if (status == 429) { // issue 16: it tells the client when to try again
      assertThat(r.getImmediateResponse().getHeaders().getSetHeadersList()).anyMatch(o -> o.getHeader().getKey()
          .equals("retry-after") && o.getHeader().getRawValue().toStringUtf8().equals("1"));
    }
  }

  @Test
  void whileThePoolIsSaturatedSheddableRequestsGet429AndOthersWaitInTheEppUntilFreshMetricsShowRoom()
      throws Exception {
    h = new EppHarness(3, 191, s -> s);
    saturate();

    assertImmediate(send("shed-me", Map.of()).next(), 429, "pool_saturated", "sheddable");
    ExtProcCall critical = send("adapter-a", Map.of());
    ExtProcCall normal = send("base-model", Map.of());
    await().atMost(Duration.ofSeconds(5)).until(() -> waiting() == 2);
    assertThat(critical.answered() || normal.answered()).as("held while the pool is saturated").isFalse();
    assertThat(h.metricsText()).contains("llmgw_flow_queue_requests{pool=\"" + POOL + "\",priority=\"5\"} 1.0")
        .as("the autoscaler's signals: 3 pods at saturation 2 (10 waiting of 5) and 2 waiting in the EPP need "
            + "ceil((3 × 2 + 2/5) / 0.8) = 8")
        .contains("llmgw_pool_flow_queue_size{inference_pool=\"sim-pool\",namespace=\"default\"} 2.0")
        .contains("llmgw_pool_desired_replicas{inference_pool=\"sim-pool\",namespace=\"default\"} 8.0");
    assertImmediate(send("shed-me", Map.of()).next(), 429, "pool_saturated", "sheddable");

    h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
    assertThat(setHeader(critical.next(), EppProtocol.DESTINATION)).isNotNull();
    assertThat(setHeader(normal.next(), EppProtocol.DESTINATION)).isNotNull();
    assertThat(waiting()).isZero();
    assertThat(h.metricsText())
        .contains("llmgw_flow_requests_total{outcome=\"dispatched\",pool=\"" + POOL + "\",priority=\"5\"} 1.0")
        .contains("llmgw_flow_wait_seconds_count{pool=\"" + POOL + "\"} 2");
    critical.cancel();
    normal.cancel();
  }

  @Test
  void aClientThatGoesAwayLeavesTheQueueAtOnceAndNothingIsRoutedForIt() throws Exception {
    h = new EppHarness(3, 194, s -> s);
    saturate();
    ExtProcCall leaving = send("adapter-a", Map.of());
    await().atMost(Duration.ofSeconds(5)).until(() -> waiting() == 1);
    leaving.cancel();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiting() == 0);
    assertThat(h.metricsText())
        .contains("llmgw_flow_requests_total{outcome=\"cancelled\",pool=\"" + POOL + "\",priority=\"5\"} 1.0");
    h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
    h.awaitQueue(0);
    h.pods.forEach(p -> assertThat(h.inFlight(p.address())).isZero());
  }

  @Test
  void aFullQueueEvictsLowerPriorityWithAClearMessageRefusesEqualsAndTheRestExpireWith429AsLlmdAnswers()
      throws Exception {
    h = new EppHarness(3, 197, s -> s.withFlow(
        s.flow().withLimits(Duration.ofSeconds(3), 1, 1 << 20, 1, 1 << 20), s.saturation()));
    saturate();
    ExtProcCall low = send("base-model", Map.of());
    await().atMost(Duration.ofSeconds(5)).until(() -> waiting() == 1);
    ExtProcCall high = send("adapter-a", Map.of());
    assertImmediate(low.next(), 429, "evicted", "priority 5");
    assertImmediate(send("adapter-a", Map.of(EppProtocol.FAIRNESS_ID, "route-a/other")).next(), 429, "queue_full",
        "full");
    assertImmediate(high.next(), 429, "queue_timeout", "within 3 s");
    assertThat(waiting()).isZero();
    assertThat(h.metricsText())
        .contains("llmgw_flow_requests_total{outcome=\"expired\",pool=\"" + POOL + "\",priority=\"5\"} 1.0")
        .contains("llmgw_flow_requests_total{outcome=\"evicted\",pool=\"" + POOL + "\",priority=\"0\"} 1.0");
  }

  @Test
  void garbageInTheNewHeadersIsA400NamingTheHeader() throws Exception {
    h = new EppHarness(1, 200, s -> s);
    assertImmediate(send("adapter-a", Map.of(EppProtocol.SLO_TTFT_MS, "soon")).next(), 400, "invalid_header",
        EppProtocol.SLO_TTFT_MS);
    assertImmediate(send("adapter-a", Map.of(EppProtocol.MIN_ACCURACY, "1.5")).next(), 400, "invalid_header",
        EppProtocol.MIN_ACCURACY);
  }

  @Test
  void withFlowControlOffOthersRouteAtOnceWhileSheddableOnesAreShed() throws Exception {
    h = new EppHarness(3, 201, s -> s.withFlow(s.flow().disabled(), s.saturation()));
    saturate();
    assertImmediate(send("shed-me", Map.of()).next(), 429, "pool_saturated", "sheddable");
    ExtProcCall critical = send("adapter-a", Map.of());
    assertThat(setHeader(critical.next(), EppProtocol.DESTINATION)).isNotNull();
    critical.cancel();
    assertThat(h.metricsText()).as("issue 27: a refused request's series carries its priority and target")
        .contains("llmgw_requests_total{code=\"429\",model=\"shed-me\",priority=\"-1\",target=\"shed-me\"} 1.0");
  }
}
