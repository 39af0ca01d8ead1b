package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.responseBody;
import static io.llmgw.extproc.server.ExtProcCall.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpTrailers;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.testing.TestGateway;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue 13: whatever a client or a proxy sends — any body in any chunking, any header set, any order of ext_proc frames
 * — the stream answers only with a status from the table (never 500), no exception escapes it, and when it ends
 * nothing stays in flight, no stream slot stays open and no body byte stays counted. Seeded, a thousand cases each in
 * CI; {@code -Djqwik.tries.default=100000} with {@code tries} removed is how {@code bench/README.md} ran them at scale
 * (see there). Each property reports its outcomes as jqwik statistics.
 */
class StreamProperties {
  static final Set<Integer> STATUS_TABLE = Set.of(200, 400, 404, 408, 413, 429, 503);
  static final String ROUTES = FileModeYaml.route("chat", "pool", "chat-lora", 5) + FileModeYaml.SEPARATOR
      + FileModeYaml.route("batch", "pool", "shed-lora", -1);

  final TestGateway g = new TestGateway(TestGateway.settings().withMaxBodyBytes(4096), 2, ROUTES);

  final long heapBefore = heapAfterGc();

  StreamProperties() {
    g.allIdle(2, "chat-lora", "shed-lora");
  }

  /** Heap flat: what the run left reachable, printed beside jqwik's statistics (bench/README.md reads it). */
  @AfterProperty
  void close() {
    g.close();
    System.out.printf("heap after GC: %d KiB before the property, %d KiB after%n", heapBefore >> 10,
        heapAfterGc() >> 10);
  }

  private static long heapAfterGc() {
    System.gc();
    return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  @Property(seed = "1301")
  void anyBodyInAnyChunkingIsAnsweredFromTheStatusTable(@ForAll("bodies") byte[] body,
      @ForAll("cuts") List<Integer> cuts) {
    ExtProcStreamTest.Recorder r = new ExtProcStreamTest.Recorder();
    ExtProcStream s = r.stream(g);
    s.onNext(ExtProcCall.post("/v1/chat/completions"));
    int from = 0;
    for (int cut : cuts) {
      int to = Math.min(body.length, from + cut);
      s.onNext(requestBody(ByteString.copyFrom(body, from, to - from), false));
      from = to;
    }
    s.onNext(requestBody(ByteString.copyFrom(body, from, body.length - from), true));
    Statistics.collect(outcome(r));
    s.onCompleted();
    assertClean(r);
  }

  @Property(seed = "1302")
  void anyHeaderSetIsAnsweredFromTheStatusTableAndNoClientTextReachesAnAnswerUncleaned(
      @ForAll("headerSets") Map<String, String> headers, @ForAll("models") String model) {
    ExtProcStreamTest.Recorder r = new ExtProcStreamTest.Recorder();
    ExtProcStream s = r.stream(g);
    Map<String, String> all = new HashMap<>(headers);
    all.putIfAbsent(":method", "POST");
    all.putIfAbsent(":path", "/v1/chat/completions");
    s.onNext(requestHeaders(all, false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    s.onNext(requestBody(ExtProcStreamTest.chat(model), true));
    Statistics.collect(outcome(r));
    for (ProcessingResponse p : r.out) {
      if (p.hasImmediateResponse()) {
        p.getImmediateResponse().getHeaders().getSetHeadersList()
            .forEach(h -> assertThat(h.getHeader().getRawValue().toStringUtf8()).as("header %s", h.getHeader().getKey())
                .doesNotContainPattern("[\\x00-\\x1f\\x7f]").hasSizeLessThanOrEqualTo(128 + "...".length()));
      }
    }
    s.onError(Status.CANCELLED.asRuntimeException());
    assertClean(r);
  }

  @Property(seed = "1303")
  void anyOrderOfFramesEndsCleanly(@ForAll("frameOrders") List<ProcessingRequest> frames,
      @ForAll boolean cancelled) {
    ExtProcStreamTest.Recorder r = new ExtProcStreamTest.Recorder();
    ExtProcStream s = r.stream(g);
    frames.forEach(s::onNext);
    Statistics.collect(r.error != null ? "ended " + Status.fromThrowable(r.error).getCode() : outcome(r));
    if (cancelled) {
      s.onError(Status.CANCELLED.asRuntimeException());
    } else {
      s.onCompleted();
    }
    if (r.error != null) {
      assertThat(Status.fromThrowable(r.error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }
    assertClean(r);
  }

  /** Clients choose header values and model names; metric labels come from the configuration alone. */
  @AfterProperty
  void labelsStayBounded() {
    for (MetricSnapshot m : g.parts.metrics().registry().scrape()) {
      if (m instanceof CounterSnapshot c && c.getMetadata().getName().equals("llmgw_requests")) {
        assertThat(c.getDataPoints()).as("series of llmgw_requests_total").hasSizeLessThanOrEqualTo(40);
        c.getDataPoints().forEach(d -> assertThat(d.getLabels().get("model")).isIn("", "chat-lora", "shed-lora"));
      }
    }
  }

  private void assertClean(ExtProcStreamTest.Recorder r) {
    for (ProcessingResponse p : r.out) {
      if (p.hasImmediateResponse()) {
        assertThat(p.getImmediateResponse().getStatus().getCodeValue()).isIn(STATUS_TABLE);
      }
    }
    assertThat(g.datastore().inFlight().all().values()).allSatisfy(l -> assertThat(l.total()).isZero());
    assertThat(g.parts.streams().limits().openStreams()).isZero();
    assertThat(g.parts.streams().limits().bufferedBytes()).isZero();
  }

  private static String outcome(ExtProcStreamTest.Recorder r) {
    for (ProcessingResponse p : r.out) {
      if (p.hasImmediateResponse()) {
        return p.getImmediateResponse().getStatus().getCodeValue() + " " + p.getImmediateResponse().getDetails();
      }
      if (p.hasRequestHeaders() && p.getRequestHeaders().getResponse().getHeaderMutation().getSetHeadersList().stream()
          .anyMatch(h -> h.getHeader().getKey().equals(EppProtocol.DESTINATION))) {
        return "routed";
      }
    }
    return r.error != null ? "gRPC " + Status.fromThrowable(r.error).getCode() : "no answer yet";
  }

  // ---- generators ----

  @Provide
  Arbitrary<String> models() {
    return Arbitraries.oneOf(Arbitraries.of("chat-lora", "shed-lora", "chat", "", "chat-lora\n"),
        Arbitraries.strings().ofMaxLength(40));
  }

  @Provide
  Arbitrary<byte[]> bodies() {
    Arbitrary<String> valid = Combinators.combine(models(), Arbitraries.strings().ofMaxLength(60),
        Arbitraries.of("messages", "prompt", "input"), Arbitraries.integers().between(0, 3))
        .as((model, text, field, extra) -> "{\"model\":" + json(model) + ",\"" + field + "\":"
            + (field.equals("messages") ? "[{\"role\":\"user\",\"content\":" + json(text) + "}]" : json(text))
            + ",\"max_tokens\":16".repeat(extra == 1 ? 1 : 0) + ",\"stream\":true".repeat(extra == 2 ? 1 : 0)
            + ",\"model\":\"shed-lora\"".repeat(extra == 3 ? 1 : 0) + "}");
    Arbitrary<String> nested = Arbitraries.integers().between(100, 200)
        .map(depth -> "{\"model\":\"chat-lora\",\"x\":" + "[".repeat(depth) + "]".repeat(depth) + "}");
    Arbitrary<byte[]> mutated = Combinators.combine(valid, Arbitraries.integers().between(0, 400),
        Arbitraries.bytes(), Arbitraries.of("insert", "replace", "delete", "truncate"))
        .as((v, at, b, how) -> mutate(v.getBytes(StandardCharsets.UTF_8), at, b, how));
    return Arbitraries.frequencyOf(
        Tuple.of(3, valid.map(v -> v.getBytes(StandardCharsets.UTF_8))),
        Tuple.of(4, mutated),
        Tuple.of(2, Arbitraries.bytes().array(byte[].class).ofMaxSize(600)),
        Tuple.of(1, nested.map(v -> v.getBytes(StandardCharsets.UTF_8))),
        Tuple.of(1, Arbitraries.integers().between(3000, 6000)
            .map(n -> ("{\"model\":\"chat-lora\",\"prompt\":\"" + "a".repeat(n) + "\"}")
                .getBytes(StandardCharsets.UTF_8))));
  }

  @Provide
  Arbitrary<List<Integer>> cuts() {
    return Arbitraries.integers().between(0, 200).list().ofMaxSize(6);
  }

  @Provide
  Arbitrary<Map<String, String>> headerSets() {
    Arbitrary<String> names = Arbitraries.of(EppProtocol.REQUEST_ID, "x-gateway-inference-objective",
        "x-gateway-model-name-rewrite", "x-gateway-inference-fairness-id", "x-slo-ttft-ms", "x-llmgw-max-latency-ms",
        "x-llmgw-min-accuracy", "x-llmgw-max-cost", EppProtocol.DESTINATION, EppProtocol.ROUTE, ":path", ":method",
        "content-type", "content-length");
    Arbitrary<String> values = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(300),
        Arbitraries.strings().withChars("\r\n\t\u0000 abcINFO").ofMaxLength(40),
        Arbitraries.of("0", "-1", "1e9", "NaN", "250", "3600001", "chat-lora", "shed-lora", "GET", "/v1/models"));
    return Arbitraries.maps(names, values).ofMaxSize(8);
  }

  @Provide
  Arbitrary<List<ProcessingRequest>> frameOrders() {
    Arbitrary<ProcessingRequest> frame = Arbitraries.of(
        ExtProcCall.post("/v1/chat/completions"),
        requestHeaders(Map.of(":method", "GET", ":path", "/v1/models"), true, BodySendMode.FULL_DUPLEX_STREAMED, null),
        requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false, BodySendMode.BUFFERED, null),
        requestBody(ExtProcStreamTest.chat("chat-lora"), true),
        requestBody("{\"model\":\"chat-", false),
        requestBody("lora\",\"prompt\":\"x\"}", true),
        ProcessingRequest.newBuilder().setRequestTrailers(HttpTrailers.getDefaultInstance()).build(),
        responseHeaders(200, "text/event-stream", null, false),
        responseHeaders(503, "application/json", null, true),
        responseBody("data: {}\n\n", false),
        responseBody("{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}", true),
        ProcessingRequest.newBuilder().setResponseTrailers(HttpTrailers.getDefaultInstance()).build(),
        ProcessingRequest.getDefaultInstance());
    return frame.list().ofMaxSize(8);
  }

  private static byte[] mutate(byte[] v, int at, byte b, String how) {
    int i = Math.min(at, v.length);
    List<Byte> out = new ArrayList<>();
    for (byte x : v) {
      out.add(x);
    }
    switch (how) {
      case "insert" -> out.add(i, b);
      case "replace" -> out.set(Math.min(i, out.size() - 1), b);
      case "delete" -> out.remove(Math.min(i, out.size() - 1));
      default -> out.subList(i, out.size()).clear();
    }
    byte[] r = new byte[out.size()];
    for (int k = 0; k < r.length; k++) {
      r[k] = out.get(k);
    }
    return r;
  }

  private static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }
}
