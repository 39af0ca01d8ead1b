package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.metadataDestination;
import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.responseBody;
import static io.llmgw.extproc.server.ExtProcCall.responseHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpTrailers;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.TrailersResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.RequestSettings;
import io.llmgw.extproc.testing.TestGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One ext_proc stream driven frame by frame, without a socket: what each frame answers, and how the exchange ends. */
class ExtProcStreamTest {
  static final String ROUTES = FileModeYaml.route("chat", "pool", "chat-lora", 5) + FileModeYaml.SEPARATOR
      + FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v2", "hf://org/sql-v2");

  final TestGateway g = new TestGateway(2, ROUTES);
  /** What one stream sent back: its frames, the error that ended it, whether it completed. */
  static final class Recorder implements StreamObserver<ProcessingResponse> {
    final List<ProcessingResponse> out = new ArrayList<>();
    Throwable error;
    boolean completed;

    @Override
    public void onNext(ProcessingResponse value) {
      out.add(value);
    }

    @Override
    public void onError(Throwable t) {
      error = t;
    }

    @Override
    public void onCompleted() {
      completed = true;
    }

    ExtProcStream stream(TestGateway gateway) {
      return new ExtProcStream(this, gateway.parts.streams());
    }
  }

  final Recorder recorder = new Recorder();
  final List<ProcessingResponse> out = recorder.out;
  final ExtProcStream stream = recorder.stream(g);

  @AfterEach
  void close() {
    g.close();
  }

  static String chat(String model) {
    return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
  }

  private int inFlight() {
    return g.datastore().inFlight().all().values().stream().mapToInt(l -> l.total()).sum();
  }

  private double requestsCounted() {
    return g.parts.metrics().registry().scrape().stream()
        .filter(m -> m.getMetadata().getName().equals("llmgw_requests"))
        .flatMap(m -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot) m).getDataPoints().stream())
        .mapToDouble(d -> d.getValue()).sum();
  }

  private long prefillTokens() {
    return g.datastore().inFlight().all().values().stream().mapToLong(l -> l.prefillTokens()).sum();
  }

  /**
   * Issue 29, item 3: a routed request's prompt counts as prefill work on its pod from the decision until the first
   * response bytes (a streamed response's first token), not until the stream ends; its in-flight count stays.
   */
  @Test
  void item29APromptCountsAsPrefillOnItsPodUntilItsFirstResponseBytes() {
    g.allIdle(2, "chat-lora");
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody(chat("chat-lora"), true));
    long expected = chat("chat-lora").length() / TestGateway.settings().requests().bytesPerToken();
    assertThat(prefillTokens()).as("the whole prompt: nothing of it is believed cached").isEqualTo(expected);
    stream.onNext(responseHeaders(200, "text/event-stream", null, false));
    assertThat(prefillTokens()).as("headers come before the first token").isEqualTo(expected);
    stream.onNext(responseBody("", false));
    assertThat(prefillTokens()).as("empty bytes are no token").isEqualTo(expected);
    stream.onNext(responseBody("data: {\"choices\":[]}\n\n", false));
    assertThat(prefillTokens()).isZero();
    assertThat(inFlight()).isEqualTo(1);
    stream.onNext(responseBody("data: [DONE]\n\n", true));
    assertThat(inFlight()).isZero();
    assertThat(prefillTokens()).isZero();
  }

  /**
   * Issue 13, item 1: a request that goes silent while it arrives (headers, part of a body, then nothing) held its
   * stream slot and its buffered bytes until the proxy gave up. After the idle timeout it is answered 408 and gives
   * both back; a stream that sent nothing at all is ended; a request whose body is complete is the EPP's to finish.
   */
  @Test
  void item1ARequestSilentWhileArrivingIsAnswered408AndGivesBackItsSlotAndBytes() {
    var settings = TestGateway.settings();
    try (TestGateway small = new TestGateway(
        settings.withRequests(settings.requests().withIdleTimeout(Duration.ofSeconds(30))), 2, ROUTES)) {
      small.allIdle(2, "chat-lora");
      StreamLimits limits = small.parts.streams().limits();
      Recorder halfBody = new Recorder();
      ExtProcStream half = halfBody.stream(small);
      half.onNext(post("/v1/chat/completions"));
      half.onNext(requestBody("{\"model\":\"chat-lora\",\"messages\":[", false));
      Recorder silent = new Recorder();
      silent.stream(small);
      Recorder complete = new Recorder();
      ExtProcStream routed = complete.stream(small);
      routed.onNext(post("/v1/chat/completions"));
      routed.onNext(requestBody(chat("chat-lora"), true));
      assertThat(limits.openStreams()).isEqualTo(3);
      assertThat(limits.bufferedBytes()).isPositive();

      small.clock.advance(Duration.ofSeconds(20));
      half.onNext(requestBody("{\"role\":\"user\",", false));
      small.clock.advance(Duration.ofSeconds(20));
      assertThat(limits.expireIdle()).as("only the stream that never sent headers is past 30 s").isEqualTo(1);
      assertThat(silent.error).satisfies(e -> assertThat(Status.fromThrowable(e).getCode())
          .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(halfBody.out).isEmpty();

      small.clock.advance(Duration.ofSeconds(11));
      assertThat(limits.expireIdle()).isEqualTo(1);
      assertThat(halfBody.out).singleElement().satisfies(r -> {
        assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(408);
        assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("request_timeout");
      });
      assertThat(limits.bufferedBytes()).as("the unfinished body's bytes came back").isZero();
      assertThat(complete.out).as("a routed request is not idle: the EPP answered it").hasSize(2);
      assertThat(complete.error).isNull();
      assertThat(limits.expireIdle()).isZero();
      half.onCompleted();
      routed.onCompleted();
      assertThat(limits.openStreams()).isZero();
    }
  }

  /** Issue 13, item 1: streams beyond the limit are answered 503 at once; a closed stream gives its place back. */
  @Test
  void item1StreamsBeyondTheLimitAreAnswered503AndAClosedOneGivesItsPlaceBack() {
    var settings = TestGateway.settings();
    try (TestGateway small = new TestGateway(settings.withRequests(settings.requests().withStreamLimits(2, 64 << 20)),
        2, ROUTES)) {
      small.allIdle(2, "chat-lora");
      ExtProcStream a = new Recorder().stream(small);
      new Recorder().stream(small).onNext(post("/v1/chat/completions"));
      Recorder third = new Recorder();
      third.stream(small).onNext(post("/v1/chat/completions"));
      assertThat(third.out).singleElement().satisfies(r -> {
        assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
        assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("too_many_streams");
      });
      assertThat(small.parts.streams().limits().openStreams()).isEqualTo(2);

      a.onCompleted();
      Recorder fourth = new Recorder();
      ExtProcStream d = fourth.stream(small);
      d.onNext(post("/v1/chat/completions"));
      d.onNext(requestBody(chat("chat-lora"), true));
      assertThat(fourth.out).hasSize(2);
      assertThat(fourth.out.getFirst().hasImmediateResponse()).isFalse();
    }
  }

  /** Issue 13, item 1: unfinished bodies together may hold only so many bytes; a finished one gives them back. */
  @Test
  void item1UnfinishedBodiesBeyondTheBudgetAreAnswered503AndTheirBytesComeBack() {
    var settings = TestGateway.settings().withMaxBodyBytes(4096);
    try (TestGateway small = new TestGateway(settings.withRequests(settings.requests().withStreamLimits(100, 8_000)),
        2, ROUTES)) {
      small.allIdle(2, "chat-lora");
      String part = "{\"model\":\"chat-lora\",\"prompt\":\"" + "x".repeat(3_000);
      Recorder first = new Recorder();
      ExtProcStream a = first.stream(small);
      a.onNext(post("/v1/chat/completions"));
      a.onNext(requestBody(part, false));
      ExtProcStream b = new Recorder().stream(small);
      b.onNext(post("/v1/chat/completions"));
      b.onNext(requestBody(part, false));
      Recorder third = new Recorder();
      ExtProcStream c = third.stream(small);
      c.onNext(post("/v1/chat/completions"));
      c.onNext(requestBody(part, false));
      assertThat(third.out).singleElement().satisfies(r -> {
        assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
        assertThat(r.getImmediateResponse().getBody().toStringUtf8()).contains("body_budget_exhausted");
      });
      assertThat(small.parts.streams().limits().bufferedBytes()).isEqualTo(2L * part.length());

      a.onNext(requestBody("\"}", true));
      assertThat(first.out).as("a finished body is routed").hasSize(2);
      b.onError(Status.CANCELLED.asRuntimeException());
      assertThat(small.parts.streams().limits().bufferedBytes()).isZero();
    }
  }

  /** Issue 13, item 5: a newline in x-request-id forged a second log line; the id is echoed only cleaned. */
  @Test
  void item5AnXRequestIdWithControlCharactersIsEchoedAndLoggedCleaned() {
    stream.onNext(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions",
        EppProtocol.REQUEST_ID, "abc\nINFO forged"), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    stream.onNext(requestBody(chat("nobody"), true));
    var immediate = out.getFirst().getImmediateResponse();
    assertThat(immediate.getStatus().getCodeValue()).isEqualTo(404);
    assertThat(immediate.getHeaders().getSetHeadersList()).anySatisfy(h -> {
      assertThat(h.getHeader().getKey()).isEqualTo(EppProtocol.REQUEST_ID);
      assertThat(h.getHeader().getRawValue().toStringUtf8()).isEqualTo("abc?INFO forged");
    });
  }

  /** Issue 13, item 5: frames out of the protocol's order end the stream cleanly, not with a 500 and a trace. */
  @Test
  void item5ABodyBeforeHeadersEndsTheStreamInvalidArgument() {
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(out).isEmpty();
    assertThat(Status.fromThrowable(recorder.error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(Status.fromThrowable(recorder.error).getDescription()).contains("request body before request headers");
    stream.onNext(post("/v1/chat/completions"));
    assertThat(out).as("nothing more is answered on a refused stream").isEmpty();
  }

  @Test
  void item5ResponseFramesBeforeTheRequestWasRoutedEndTheStreamAndLeaveNothingInFlight() {
    g.allIdle(2, "chat-lora");
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(responseHeaders(200, "text/event-stream", null, false));
    assertThat(Status.fromThrowable(recorder.error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(Status.fromThrowable(recorder.error).getDescription())
        .contains("response headers before the request was routed");
    assertThat(inFlight()).isZero();
  }

  @Test
  void item5ResponseBodyBeforeResponseHeadersAndHeadersTwiceAreRefused() {
    g.allIdle(2, "chat-lora");
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(inFlight()).isEqualTo(1);
    stream.onNext(responseBody("data: x", false));
    assertThat(Status.fromThrowable(recorder.error).getDescription()).contains("response body before response headers");
    assertThat(inFlight()).as("the routed request's lease is released").isZero();

    Recorder second = new Recorder();
    ExtProcStream twice = second.stream(g);
    twice.onNext(post("/v1/chat/completions"));
    twice.onNext(post("/v1/chat/completions"));
    assertThat(Status.fromThrowable(second.error).getDescription()).contains("request headers twice");
  }

  /**
   * Issue 13, item 2: streams held open after their routing answer drove the pool to saturation forever (here ten fill
   * both pods' room; later requests wait in flow control).
   */
  @Test
  void item2StreamsHeldOpenAfterTheRoutingAnswerStopCountingOnceTheyOutlastTheLimit() {
    g.allIdle(2, "chat-lora");
    List<ExtProcStream> held = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ExtProcStream s = new Recorder().stream(g);
      s.onNext(post("/v1/chat/completions"));
      s.onNext(requestBody(chat("chat-lora"), true));
      held.add(s);
    }
    assertThat(inFlight()).isEqualTo(10);
    Duration max = RequestSettings.defaults().maxRequestDuration();
    g.clock.advance(max.plusSeconds(1));
    g.allIdle(2, "chat-lora"); // fresh scrapes at the new time

    assertThat(g.datastore().inFlight().expireOlderThan(max)).isEqualTo(10);
    assertThat(inFlight()).isZero();
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(out).as("a new request is routed at once").hasSize(2);
    assertThat(out.getFirst().hasImmediateResponse()).isFalse();
    assertThat(inFlight()).isEqualTo(1);
    held.forEach(s -> s.onError(Status.CANCELLED.asRuntimeException()));
    assertThat(inFlight()).as("their ends release nothing twice").isEqualTo(1);
  }

  @Test
  void aWholeExchangeRoutesPassesTheResponseThroughAndEndsCountedOnce() {
    g.allIdle(2, "chat-lora");
    stream.onNext(post("/v1/chat/completions"));
    assertThat(out).as("headers are held until the body decides").isEmpty();
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(out).hasSize(2);
    String primary = setHeader(out.get(0), EppProtocol.DESTINATION);
    assertThat(primary).isIn(address(1), address(2));
    assertThat(metadataDestination(out.get(0))).as("item 9: the metadata carries the header's value")
        .isEqualTo(primary);
    assertThat(setHeader(out.get(0), EppProtocol.ROUTE)).isEqualTo("default/chat");
    assertThat(out.get(1).getRequestBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream())
        .isTrue();
    assertThat(inFlight()).isEqualTo(1);

    stream.onNext(responseHeaders(200, "text/event-stream", null, false));
    stream.onNext(responseBody("data: {\"choices\":[]}\n\n", false));
    stream.onNext(responseBody("data: [DONE]\n\n", true));
    assertThat(out).hasSize(5);
    assertThat(inFlight()).as("released at the response's end").isZero();
    stream.onError(Status.CANCELLED.asRuntimeException());
    stream.onCompleted();
    assertThat(inFlight()).isZero();
    assertThat(recorder.completed).isTrue();
    assertThat(requestsCounted()).as("counted once").isEqualTo(1);
  }

  @Test
  void aStreamEndedWhileQueuedLeavesTheQueueAndNothingIsEverRoutedForIt() {
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of("chat-lora"));
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of("chat-lora"));
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(out).isEmpty();
    assertThat(g.parts.flow().waiting(new PoolKey("default", "pool"))).isEqualTo(1);

    stream.onError(Status.CANCELLED.asRuntimeException());
    assertThat(g.parts.flow().waiting(new PoolKey("default", "pool"))).isZero();
    g.allIdle(2, "chat-lora");
    assertThat(out).isEmpty();
    assertThat(inFlight()).isZero();
    assertThat(requestsCounted()).as("counted as cancelled").isEqualTo(1);
  }

  @Test
  void trailersThatArriveWhileTheRequestWaitsAreAnsweredAfterItsRoute() {
    g.allIdle(2);
    stream.onNext(post("/v1/completions"));
    stream.onNext(requestBody(chat("sql"), false));
    stream.onNext(ProcessingRequest.newBuilder().setRequestTrailers(HttpTrailers.getDefaultInstance()).build());
    assertThat(out).as("loading sql-v2").isEmpty();
    String on = g.runtime.loads.getFirst().substring("sql-v2@".length());
    g.runtime.finish("sql-v2", on);
    assertThat(out).hasSize(3);
    assertThat(setHeader(out.get(0), EppProtocol.DESTINATION)).isEqualTo(on);
    assertThat(out.get(1).getRequestBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream())
        .as("the body ended at the trailers, not in a body frame").isFalse();
    assertThat(out.get(2).getRequestTrailers()).isEqualTo(TrailersResponse.getDefaultInstance());
  }

  @Test
  void anAnsweredRequestIgnoresWhateverFollows() {
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody("{\"model\":\"nobody\"}", true));
    assertThat(out).singleElement()
        .satisfies(r -> assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(404));
    stream.onNext(requestBody("more", true));
    stream.onNext(responseHeaders(200, "application/json", null, true));
    assertThat(out).hasSize(1);
  }

  @Test
  void inBufferedModeTheRouteTravelsInTheBodyResponse() {
    g.allIdle(2, "chat-lora");
    stream.onNext(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions"), false,
        BodySendMode.BUFFERED, null));
    assertThat(out).singleElement().satisfies(r -> assertThat(r.hasRequestHeaders()).isTrue());
    stream.onNext(requestBody(chat("chat-lora"), true));
    assertThat(out).hasSize(2);
    assertThat(out.get(1).hasRequestBody()).isTrue();
    assertThat(metadataDestination(out.get(1))).startsWith("127.0.0.")
        .isEqualTo(setHeader(out.get(1), EppProtocol.DESTINATION));
  }

  /**
   * Issue 13, item 9: the Endpoint Picker Protocol forbids different values in the destination header and the
   * {@code envoy.lb} metadata. Listed, both carry the ordered list; by default both carry the primary alone.
   */
  @Test
  void item9WithFallbacksListedTheHeaderAndTheMetadataCarryTheSameOrderedList() {
    var settings = TestGateway.settings();
    try (TestGateway listed = new TestGateway(settings.withRequests(settings.requests().withDestinationFallbacks(true)),
        2, ROUTES)) {
      listed.allIdle(2, "chat-lora");
      Recorder r = new Recorder();
      ExtProcStream s = r.stream(listed);
      s.onNext(post("/v1/chat/completions"));
      s.onNext(requestBody(chat("chat-lora"), true));
      String header = setHeader(r.out.get(0), EppProtocol.DESTINATION);
      assertThat(header.split(",")).containsExactlyInAnyOrder(address(1), address(2));
      assertThat(metadataDestination(r.out.get(0))).isEqualTo(header);
    }
  }

  @Test
  void aBodyOverTheLimitIsAnswered413BeforeItIsBuffered() {
    stream.onNext(post("/v1/chat/completions"));
    stream.onNext(requestBody("x".repeat(8 << 20), false));
    stream.onNext(requestBody("x", true));
    assertThat(out).singleElement()
        .satisfies(r -> assertThat(r.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(413));
  }
}
