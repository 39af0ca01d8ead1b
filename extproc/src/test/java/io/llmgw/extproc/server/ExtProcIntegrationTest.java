package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.metadataDestination;
import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Endpoint Picker Protocol end to end: real gRPC server, real ext_proc frames, real HTTP pods. */
class ExtProcIntegrationTest {
  static EppHarness h;

  @BeforeAll
  static void start() throws Exception {
    h = new EppHarness(3, 31, s -> s.withMaxBodyBytes(2 << 20));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  @BeforeEach
  void calmPods() {
    h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
    h.awaitQueue(0);
  }

  static String chat(String model) {
    return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"stream\":true}";
  }

  /** Sends headers + body in the given chunks, returns the first answer. */
  static ProcessingResponse routeFullDuplex(ExtProcCall call, String... chunks) throws InterruptedException {
    call.send(post("/v1/chat/completions"));
    for (int i = 0; i < chunks.length; i++) {
      call.send(requestBody(chunks[i], i == chunks.length - 1));
    }
    return call.next();
  }

  static ByteString drainRequestBody(ExtProcCall call) throws InterruptedException {
    ByteString all = ByteString.EMPTY;
    while (true) {
      ProcessingResponse r = call.next();
      assertThat(r.hasRequestBody()).isTrue();
      var streamed = r.getRequestBody().getResponse().getBodyMutation().getStreamedResponse();
      assertThat(streamed.getBody().size()).isLessThanOrEqualTo(62_000);
      all = all.concat(streamed.getBody());
      if (streamed.getEndOfStream()) {
        return all;
      }
    }
  }

  @Test
  void fullDuplexRequestIsRoutedWithHeaderAndMetadataThenTheBodyFollows() throws Exception {
    ExtProcCall call = h.open();
    String body = chat("adapter-a");

    ProcessingResponse first = routeFullDuplex(call, body.substring(0, 5), body.substring(5, 30), body.substring(30));

    assertThat(first.hasRequestHeaders()).isTrue();
    assertThat(first.getRequestHeaders().getResponse().getClearRouteCache()).isTrue();
    List<String> endpoints = Arrays.asList(metadataDestination(first).split(","));
    assertThat(endpoints).as("item 9: by default one address, in both places").hasSize(1)
        .allMatch(e -> h.pods.stream().anyMatch(p -> p.address().equals(e)));
    assertThat(setHeader(first, EppProtocol.DESTINATION)).as("ORIGINAL_DST takes one address")
        .isEqualTo(endpoints.getFirst());
    assertThat(drainRequestBody(call).toStringUtf8()).isEqualTo(body);
    assertThat(h.inFlight(endpoints.getFirst())).isEqualTo(1);

    call.send(ExtProcCall.responseHeaders(200, "application/json", null, false));
    assertThat(call.next().hasResponseHeaders()).isTrue();
    call.send(ExtProcCall
        .responseBody("{\"model\":\"adapter-a\",\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}", true));
    assertThat(call.next().getResponseBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream())
        .isTrue();
    call.end();
    await().atMost(Duration.ofSeconds(5)).until(() -> h.inFlight(endpoints.getFirst()) == 0);
    assertThat(h.metricsText()).contains("llmgw_tokens_total{kind=\"completion\",model=\"adapter-a\"} 9.0");
  }

  @Test
  void bufferedModeCarriesTheDecisionInTheBodyResponse() throws Exception {
    ExtProcCall call = h.open();
    call.send(
        requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false, BodySendMode.BUFFERED, null));
    ProcessingResponse headers = call.next();
    assertThat(headers.hasRequestHeaders()).isTrue();
    assertThat(setHeader(headers, EppProtocol.DESTINATION)).isNull();

    call.send(requestBody("{\"model\":\"split\",\"prompt\":\"hi\"}", true));
    ProcessingResponse decision = call.next();

    assertThat(decision.hasRequestBody()).isTrue();
    assertThat(decision.getRequestBody().getResponse().getClearRouteCache()).isTrue();
    assertThat(metadataDestination(decision)).isEqualTo(setHeader(decision, EppProtocol.DESTINATION));
    assertThat(decision.getRequestBody().getResponse().getBodyMutation().getBody().toStringUtf8())
        .isEqualTo("{\"model\":\"split-v1\",\"prompt\":\"hi\"}");
    call.cancel();
  }

  @Test
  void bodyModesThatCannotRouteAreAnsweredInsteadOfHanging() throws Exception {
    ExtProcCall streamed = h.open();
    streamed.send(
        requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false, BodySendMode.STREAMED, null));
    assertImmediate(streamed.next(), 500, "unsupported_body_mode");

    ExtProcCall partial = h.open();
    partial.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false,
        BodySendMode.BUFFERED_PARTIAL, null));
    assertThat(partial.next().hasRequestHeaders()).isTrue();
    partial.send(requestBody("{\"model\":\"adapter-a\",\"prompt\":\"trunc", false));
    assertImmediate(partial.next(), 413, "request_too_large");
  }

  @Test
  void everyRowOfTheStatusTableHasItsCodeAndAnOpenAiErrorBody() throws Exception {
    assertRejected(400, "invalid_body", "not json at all");
    assertRejected(400, "invalid_body", "[1,2,3]");
    assertRejected(400, "invalid_body", "{\"model\":17}");
    assertRejected(400, "missing_model", "{\"messages\":[]}");
    assertRejected(404, "model_not_found", chat("no-such-model"));
    assertRejected(503, "no_ready_endpoint", chat("orphan-model"));

    ExtProcCall tooBig = h.open();
    tooBig.send(post("/v1/completions"));
    tooBig.send(requestBody(ByteString.copyFrom(new byte[(2 << 20) + 1]), false));
    assertImmediate(tooBig.next(), 413, "request_too_large");

    ExtProcCall noBody = h.open();
    noBody.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), true,
        BodySendMode.FULL_DUPLEX_STREAMED, null));
    assertImmediate(noBody.next(), 400, "missing_model");

    ExtProcCall subset = h.open();
    subset.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, subsetHint("10.1.2.3:8000")));
    subset.send(requestBody(chat("adapter-a"), true));
    assertImmediate(subset.next(), 503, "subset_mismatch");
  }

  private ProcessingResponse bodiless(String method, String path) throws InterruptedException {
    ExtProcCall call = h.open();
    call.send(requestHeaders(Map.of(":method", method, ":path", path), true, BodySendMode.FULL_DUPLEX_STREAMED, null));
    return call.next();
  }

  private static String header(ProcessingResponse r, String name) {
    return r.getImmediateResponse().getHeaders().getSetHeadersList().stream()
        .filter(o -> o.getHeader().getKey().equals(name)).map(o -> o.getHeader().getRawValue().toStringUtf8())
        .findFirst().orElse(null);
  }

  /**
   * Issue 16: requests without a body are answered for what they are: a model by id (percent-decoded, as SDKs send a
   * name with slashes), the gateway's health, and a path it does not serve; only an inference path misses its model.
   */
  @Test
  void requestsWithoutABodyAreAnsweredForWhatTheyAre() throws Exception {
    ProcessingResponse model = bodiless("GET", "/v1/models/adapter-a");
    assertThat(model.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(200);
    assertThat(model.getImmediateResponse().getBody().toStringUtf8())
        .isEqualTo("{\"id\":\"adapter-a\",\"object\":\"model\",\"created\":0,\"owned_by\":\"llmgw\"}");
    assertImmediate(bodiless("GET", "/v1/models/no-such-model"), 404, "model_not_found");
    assertImmediate(bodiless("GET", "/v1/models/%ZZ"), 404, "model_not_found");
    ProcessingResponse health = bodiless("GET", "/health");
    assertThat(health.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(200);
    ProcessingResponse other = bodiless("GET", "/v1/files-or-whatever");
    assertImmediate(other, 404, "not_found");
    assertThat(other.getImmediateResponse().getBody().toStringUtf8()).contains("GET", "/v1/files-or-whatever");
    assertImmediate(bodiless("POST", "/v1/embeddings"), 400, "missing_model");
    assertThat(header(model, "retry-after")).isNull();
  }

  /** Issue 32, item 1: a request that asks is explained at /admin/decisions, found by its id. */
  @Test
  void aRequestThatAsksForItsDecisionIsFoundByItsIdOnTheAdminPort() throws Exception {
    ExtProcCall call = h.open();
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", EppProtocol.REQUEST_ID,
        "trace-me-29", "x-llmgw-explain", "1"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(chat("adapter-a"), true));
    String pod = setHeader(call.next(), EppProtocol.DESTINATION);
    call.cancel();
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + h.epp.metricsPort()
            + "/admin/decisions?id=trace-me")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    var decisions = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("decisions");
    assertThat(decisions).hasSize(1);
    assertThat(decisions.get(0).get("requestId").asText()).isEqualTo("trace-me-29");
    assertThat(decisions.get(0).get("outcome").asText()).isEqualTo("routed");
    assertThat(decisions.get(0).get("pod").asText()).isEqualTo(pod);
    assertThat(decisions.get(0).get("schedule").get("scorers").toString()).contains("scores", pod);
  }

  /** Issue 32, item 5: an inference path takes a JSON POST; anything else is told so before its body is read. */
  @Test
  void anInferencePathRefusesOtherMethodsAndBodiesThatAreNotJson() throws Exception {
    assertImmediate(bodiless("GET", "/v1/chat/completions"), 405, "method_not_allowed");
    for (String type : List.of("text/plain", "application/x-www-form-urlencoded")) {
      ExtProcCall call = h.open();
      call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", "content-type", type),
          false, BodySendMode.FULL_DUPLEX_STREAMED, null));
      ProcessingResponse refused = call.next();
      assertImmediate(refused, 415, "unsupported_media_type");
      assertThat(refused.getImmediateResponse().getBody().toStringUtf8()).contains(type);
      call.cancel();
    }
    ExtProcCall json = h.open();
    json.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions", "content-type",
        "application/json; charset=utf-8"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    json.send(requestBody(chat("adapter-a"), true));
    assertThat(setHeader(json.next(), EppProtocol.DESTINATION)).as("JSON with a charset is JSON").isNotNull();
    json.cancel();
  }

  @Test
  void subsetHintRestrictsThePickToTheListedEndpoints() throws Exception {
    String only = h.pods.get(2).address();
    for (int i = 0; i < 5; i++) {
      ExtProcCall call = h.open();
      call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false,
          BodySendMode.FULL_DUPLEX_STREAMED, subsetHint(only, "10.1.2.3:8000")));
      call.send(requestBody(chat("adapter-a"), true));
      assertThat(setHeader(call.next(), EppProtocol.DESTINATION)).isEqualTo(only);
      call.cancel();
    }
  }

  @Test
  void aOneMebibyteBodyOverManyFramesIsRoutedAndReEmittedExactly() throws Exception {
    StringBuilder sb = new StringBuilder("{\"model\":\"split\",\"messages\":[");
    while (sb.length() < (1 << 20)) {
      sb.append("{\"role\":\"user\",\"content\":\"").append("lorem ipsum ".repeat(50)).append("\"},");
    }
    sb.setLength(sb.length() - 1);
    byte[] body = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    ExtProcCall call = h.open();
    call.send(post("/v1/chat/completions"));
    for (int off = 0; off < body.length; off += 16_384) {
      int end = Math.min(body.length, off + 16_384);
      call.send(requestBody(ByteString.copyFrom(body, off, end - off), end == body.length));
    }

    ProcessingResponse first = call.next();
    String expected = new String(body, StandardCharsets.UTF_8).replaceFirst("\"model\":\"split\"",
        "\"model\":\"split-v1\"");
    assertThat(setHeader(first, "content-length"))
        .isEqualTo(Integer.toString(expected.getBytes(StandardCharsets.UTF_8).length));
    assertThat(drainRequestBody(call).toStringUtf8()).isEqualTo(expected);
    call.cancel();
  }

  @Test
  void spoofedRoutingHeadersAreDroppedAndARequestIdIsAdded() throws Exception {
    ExtProcCall call = h.open();
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions",
        EppProtocol.DESTINATION, "6.6.6.6:80", EppProtocol.DESTINATION_SERVED, "6.6.6.6:80",
        EppProtocol.ROUTE, "default/batch"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody(chat("adapter-a"), true));
    ProcessingResponse r = call.next();

    assertThat(setHeader(r, EppProtocol.DESTINATION)).doesNotContain("6.6.6.6");
    assertThat(setHeader(r, EppProtocol.ROUTE)).as("the matched route, not the client's claim")
        .isEqualTo("default/route-a");
    assertThat(r.getRequestHeaders().getResponse().getHeaderMutation().getRemoveHeadersList())
        .contains(EppProtocol.DESTINATION_SERVED);
    assertThat(setHeader(r, EppProtocol.REQUEST_ID)).matches("[0-9a-f-]{36}");
    call.cancel();

    ExtProcCall withId = h.open();
    withId.send(
        requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions", EppProtocol.REQUEST_ID, "abc"), false,
            BodySendMode.FULL_DUPLEX_STREAMED, null));
    withId.send(requestBody(chat("adapter-a"), true));
    assertThat(setHeader(withId.next(), EppProtocol.REQUEST_ID)).isNull();
    withId.cancel();
  }

  @Test
  void streamingResponsePassesChunkByChunkWithTheModelNameRestored() throws Exception {
    ExtProcCall call = h.open();
    ProcessingResponse first = routeFullDuplex(call, chat("split"));
    assertThat(drainRequestBody(call).toStringUtf8()).contains("\"model\":\"split-v1\"");

    call.send(ExtProcCall.responseHeaders(200, "text/event-stream", null, false));
    ProcessingResponse headers = call.next();
    assertThat(headers.getResponseHeaders().getResponse().getHeaderMutation().getRemoveHeadersList())
        .containsExactly("content-length");
    String[] events = {
        "data: {\"id\":\"1\",\"model\":\"split-v1\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
        "data: {\"id\":\"2\",\"model\":\"split-v1\",\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
        "data: {\"id\":\"3\",\"model\":\"split-v1\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\n\n",
        "data: [DONE]\n\n"};
    for (int i = 0; i < events.length; i++) {
      call.send(ExtProcCall.responseBody(events[i], i == events.length - 1));
      var streamed = call.next().getResponseBody().getResponse().getBodyMutation().getStreamedResponse();
      assertThat(streamed.getBody().toStringUtf8()).isEqualTo(events[i].replace("split-v1", "split"));
      assertThat(streamed.getEndOfStream()).isEqualTo(i == events.length - 1);
    }
    call.end();
    await().atMost(Duration.ofSeconds(5))
        .until(() -> h.inFlight(setHeader(first, EppProtocol.DESTINATION).split(",")[0]) == 0);
    assertThat(h.metricsText()).contains("llmgw_tokens_total{kind=\"completion\",model=\"split\"} 2.0")
        .contains("llmgw_requests_total{code=\"200\",model=\"split\",priority=\"0\",target=\"split-v1\"}");
  }

  @Test
  void inFlightIsReleasedWhenTheProxyCancelsMidResponse() throws Exception {
    ExtProcCall call = h.open();
    String primary = setHeader(routeFullDuplex(call, chat("adapter-a")), EppProtocol.DESTINATION).split(",")[0];
    drainRequestBody(call);
    call.send(ExtProcCall.responseHeaders(200, "text/event-stream", null, false));
    call.next();
    assertThat(h.inFlight(primary)).isEqualTo(1);

    call.cancel();

    await().atMost(Duration.ofSeconds(5)).until(() -> h.inFlight(primary) == 0);
  }

  @Test
  void servedEndpointMetadataMovesTheAccountingToTheFallbackThatServed() throws Exception {
    ExtProcCall call = h.open();
    String primary = metadataDestination(routeFullDuplex(call, chat("adapter-a")));
    String[] dest = {primary, h.pods.stream().map(p -> p.address()).filter(a -> !a.equals(primary)).findFirst()
        .orElseThrow()};
    drainRequestBody(call);

    call.send(ExtProcCall.responseHeaders(200, "application/json", dest[1], false));
    call.next();

    assertThat(h.inFlight(dest[0])).isZero();
    assertThat(h.inFlight(dest[1])).isEqualTo(1);
    call.send(ExtProcCall.responseBody("{}", true));
    call.next();
    call.end();
    await().atMost(Duration.ofSeconds(5)).until(() -> h.inFlight(dest[1]) == 0);
  }

  /** Issue 13, item 3: the header used to send an adapter-a request to the shed-me route's adapter. */
  @Test
  void item3AClientsRewriteHeaderCannotSendItsRequestToAnotherRoute() throws Exception {
    ExtProcCall call = h.open();
    call.send(requestHeaders(
        Map.of(":method", "POST", ":path", "/v1/completions", EppProtocol.MODEL_REWRITE, "shed-me"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"adapter-a\",\"prompt\":\"x\"}", true));
    assertThat(call.next().hasRequestHeaders()).isTrue();
    assertThat(drainRequestBody(call).toStringUtf8()).isEqualTo("{\"model\":\"adapter-a\",\"prompt\":\"x\"}");
    call.cancel();
  }

  @Test
  void getModelsIsAnsweredFromTheRoutes() throws Exception {
    ExtProcCall call = h.open();
    call.send(
        requestHeaders(Map.of(":method", "GET", ":path", "/v1/models"), true, BodySendMode.FULL_DUPLEX_STREAMED, null));
    ProcessingResponse r = call.next();
    assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(200);
    assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("\"id\":\"adapter-a\"", "\"id\":\"split\"");
  }

  static io.envoyproxy.envoy.config.core.v3.Metadata subsetHint(String... addresses) {
    ListValue.Builder list = ListValue.newBuilder();
    for (String a : addresses) {
      list.addValues(Value.newBuilder().setStringValue(a));
    }
    return ExtProcCall.lbMetadata(EppProtocol.SUBSET_HINT_NAMESPACE, EppProtocol.DESTINATION_SUBSET,
        Value.newBuilder().setListValue(list).build());
  }

  static void assertRejected(int status, String code, String body) throws InterruptedException {
    ExtProcCall call = h.open();
    assertImmediate(routeFullDuplex(call, body), status, code);
  }

  /** One field of an OpenAI error body, read as JSON (never matched as text). */
  static String errorField(String json, String field) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).path("error").path(field).asText(null);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  static void assertImmediate(ProcessingResponse r, int status, String code) {
    assertThat(r.hasImmediateResponse()).as("immediate response for " + code).isTrue();
    var ir = r.getImmediateResponse();
    assertThat(ir.getStatus().getCodeValue()).isEqualTo(status);
    assertThat(errorField(ir.getBody().toStringUtf8(), "code")).isEqualTo(code);
    assertThat(ir.getHeaders().getSetHeadersList())
        .anyMatch(o -> o.getHeader().getKey().equals("content-type")
            && o.getHeader().getRawValue().toStringUtf8().equals("application/json"));
  }
}
