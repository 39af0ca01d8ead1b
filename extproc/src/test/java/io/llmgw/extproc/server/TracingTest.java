package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.responseBody;
import static io.llmgw.extproc.server.ExtProcCall.responseHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.extproc.observe.tracing.TraceSettings;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 32, item 2: traces over OTLP, received by a real OTLP/HTTP receiver that decodes the exporter's protobuf. A
 * span per request with a child per phase and the decision as attributes; the caller's W3C traceparent followed; the
 * routed request carries the request span's own.
 */
class TracingTest {
  static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CALLER_SPAN = "00f067aa0ba902b7";

  final List<Span> received = new CopyOnWriteArrayList<>();
  final List<String> refusedBodies = new CopyOnWriteArrayList<>();
  HttpServer receiver;

  @BeforeEach
  void startReceiver() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/v1/traces", ex -> {
      byte[] body = ex.getRequestBody().readAllBytes();
      try {
        ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
        for (ResourceSpans rs : request.getResourceSpansList()) {
          for (ScopeSpans ss : rs.getScopeSpansList()) {
            received.addAll(ss.getSpansList());
          }
        }
        ex.getResponseHeaders().set("content-type", "application/x-protobuf");
        ex.sendResponseHeaders(200, -1);
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        refusedBodies.add(e.getMessage());
        ex.sendResponseHeaders(400, -1);
      }
      ex.close();
    });
    receiver.start();
  }

  @AfterEach
  void stopReceiver() {
    receiver.stop(0);
  }

  EppHarness epp(double ratio) throws Exception {
    URI endpoint = URI.create("http://127.0.0.1:" + receiver.getAddress().getPort());
    return new EppHarness(2, 241, s -> s.withRequests(s.requests().withTraces(s.requests().traces()
        .to(endpoint, ratio))));
  }

  /** Routes one chat request with these extra headers, streams a response back and ends it; the routing answer. */
  static ProcessingResponse exchange(EppHarness h, Map<String, String> extra) throws InterruptedException {
    Map<String, String> headers = new LinkedHashMap<>(Map.of(":method", "POST", ":path", "/v1/chat/completions",
        "content-type", "application/json"));
    headers.putAll(extra);
    ExtProcCall call = h.open();
    call.send(requestHeaders(headers, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"adapter-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", true));
    ProcessingResponse routing = call.next();
    while (call.answered()) {
      call.next();
    }
    call.send(responseHeaders(200, "text/event-stream", null, false));
    call.next();
    call.send(responseBody("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", false));
    call.next();
    call.send(responseBody("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}\n\n"
        + "data: [DONE]\n\n", true));
    call.next();
    call.end();
    return routing;
  }

  static String attribute(Span span, String key) {
    for (KeyValue kv : span.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        var v = kv.getValue();
        return v.hasIntValue() ? Long.toString(v.getIntValue()) : v.getStringValue();
      }
    }
    return null;
  }

  static String hex(com.google.protobuf.ByteString id) {
    return HexFormat.of().formatHex(id.toByteArray());
  }

  @Test
  void aRequestIsASpanWithAChildPerPhaseTheDecisionAsAttributesInTheCallersTrace() throws Exception {
    ProcessingResponse routing;
    String pod;
    try (EppHarness h = epp(0.0)) {
      routing = exchange(h, Map.of("traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01",
          "x-request-id", "traced-1"));
      pod = setHeader(routing, "x-gateway-destination-endpoint");
    } // closing the EPP sends what is queued
    assertThat(refusedBodies).isEmpty();
    Span request = received.stream().filter(s -> s.getName().equals("llmgw request")).findFirst().orElseThrow();
    assertThat(hex(request.getTraceId())).as("the caller's trace, though the ratio is 0").isEqualTo(CALLER_TRACE);
    assertThat(hex(request.getParentSpanId())).isEqualTo(CALLER_SPAN);
    assertThat(attribute(request, "llmgw.request_id")).isEqualTo("traced-1");
    assertThat(attribute(request, "gen_ai.request.model")).isEqualTo("adapter-a");
    assertThat(attribute(request, "llmgw.route")).isEqualTo("default/route-a");
    assertThat(attribute(request, "llmgw.pod")).isEqualTo(pod);
    assertThat(attribute(request, "http.response.status_code")).isEqualTo("200");
    assertThat(attribute(request, "gen_ai.usage.output_tokens")).isEqualTo("1");
    assertThat(attribute(request, "llmgw.decision")).startsWith("routed to " + pod).contains("filter");
    assertThat(request.getEventsList().stream().map(Span.Event::getName))
        .containsSubsequence("response started", "first token");

    Map<String, Span> phases = received.stream().filter(s -> s.getParentSpanId().equals(request.getSpanId()))
        .collect(Collectors.toMap(Span::getName, s -> s));
    assertThat(phases.keySet()).containsExactlyInAnyOrder("llmgw receive", "llmgw resolve", "llmgw prepare",
        "llmgw admission", "llmgw load", "llmgw schedule");
    assertThat(phases.get("llmgw schedule").getStartTimeUnixNano())
        .isGreaterThanOrEqualTo(phases.get("llmgw load").getEndTimeUnixNano());
    assertThat(request.getEndTimeUnixNano()).isGreaterThanOrEqualTo(phases.get("llmgw schedule")
        .getEndTimeUnixNano());

    assertThat(setHeader(routing, "traceparent")).as("the pod's spans join the request's")
        .isEqualTo("00-" + CALLER_TRACE + "-" + hex(request.getSpanId()) + "-01");
  }

  @Test
  void aRequestNotSampledCostsNoSpanAndCarriesNoNewTraceparent() throws Exception {
    ProcessingResponse unsampledParent;
    ProcessingResponse noParent;
    try (EppHarness h = epp(0.0)) {
      unsampledParent = exchange(h, Map.of("traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-00"));
      noParent = exchange(h, Map.of());
    }
    assertThat(received).isEmpty();
    assertThat(setHeader(unsampledParent, "traceparent")).isNull();
    assertThat(setHeader(noParent, "traceparent")).isNull();
  }

  /** A traceparent that is not one starts a new trace (when sampled), never an error. */
  @Test
  void garbageTraceparentsStartANewTrace() throws Exception {
    List<String> garbage = List.of("00-zzzz-yyyy-01", "ff-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01",
        "00-00000000000000000000000000000000-" + CALLER_SPAN + "-01", "x".repeat(4096));
    try (EppHarness h = epp(1.0)) {
      for (String g : garbage) {
        ProcessingResponse r = exchange(h, Map.of("traceparent", g));
        assertThat(setHeader(r, "x-gateway-destination-endpoint")).as(g).isNotNull();
        assertThat(setHeader(r, "traceparent")).as(g).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[13]") // 02: W3C level 2 random id
            .doesNotContain(CALLER_TRACE);
      }
    }
    assertThat(received.stream().filter(s -> s.getName().equals("llmgw request")).count())
        .isEqualTo(garbage.size());
  }

  @Test
  void settingsRefuseARatioOutOfRangeOrAnEndpointThatIsNotHttp() {
    TraceSettings off = TraceSettings.off();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> off.to(URI.create("http://127.0.0.1:4318"), 1.5))
        .hasMessageContaining("traces.sampleRatio");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> off.to(URI.create("ftp://127.0.0.1"), 0.5))
        .hasMessageContaining("traces.otlpEndpoint");
    assertThat(off.enabled()).isFalse();
  }

}
