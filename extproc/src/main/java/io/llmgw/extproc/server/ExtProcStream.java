package io.llmgw.extproc.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.body.BodyProblem;
import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.body.ModelExtractor;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.body.ResponseModelRewriter;
import io.llmgw.extproc.body.UsageSniffer;
import io.llmgw.extproc.routing.ErrorReply;
import io.llmgw.extproc.flow.FlowRejection;
import io.llmgw.extproc.flow.Ticket;
import io.llmgw.extproc.routing.RequestHints;
import io.llmgw.extproc.routing.Stage;
import io.llmgw.extproc.routing.RoutingResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Endpoint Picker Protocol for one HTTP request. Request side: headers are held (FULL_DUPLEX_STREAMED) until the
 * body has ended, then the routing decision goes out as header mutation + {@code envoy.lb} metadata, followed by the
 * body in chunks; in BUFFERED mode the decision travels in the body response. Response side: every chunk passes
 * through (rewritten back when the model was rewritten). In-flight accounting ends exactly once, whichever way the
 * stream ends.
 */
final class ExtProcStream implements StreamObserver<ProcessingRequest> {
  private static final Logger LOG = LoggerFactory.getLogger(ExtProcStream.class);

  private static final Set<BodySendMode> ROUTABLE_BODY_MODES =
      Set.of(BodySendMode.FULL_DUPLEX_STREAMED, BodySendMode.BUFFERED, BodySendMode.BUFFERED_PARTIAL);

  private final StreamObserver<ProcessingResponse> out;
  private final StreamDeps deps;
  private final ModelExtractor extractor = new ModelExtractor();
  private final RequestBody body = new RequestBody();

  private boolean fullDuplexRequest = true;
  private boolean fullDuplexResponse = true;
  private Map<String, String> headers = Map.of();
  private String requestId;
  private boolean requestIdGenerated;
  private List<String> spoofed = List.of();
  private Set<String> subset;
  private boolean bodyEnded;
  private boolean decided;
  private boolean closed;
  private RoutingResult.Routed routed;
  private ResponseModelRewriter rewriter;
  private UsageSniffer usage;
  private String responseStatus = "0";
  private boolean finished;
  /** Waiting for an adapter load or for flow control: trailers are answered after the decision. */
  private boolean awaiting;
  /** The request's place in flow control while it waits there; cancelled when the stream ends. */
  private Ticket ticket;
  private RequestHints hints;
  private ResponseTiming timing;
  /** The proxy ended or cancelled the stream: a load finishing later must not route (or count) anything. */
  private boolean streamEnded;
  private boolean trailersPending;

  ExtProcStream(StreamObserver<ProcessingResponse> out, StreamDeps deps) {
    this.out = out;
    this.deps = deps;
  }

  @Override
  public synchronized void onNext(ProcessingRequest req) {
    if (closed) {
      return;
    }
    try {
      switch (req.getRequestCase()) {
        case REQUEST_HEADERS -> onRequestHeaders(req);
        case REQUEST_BODY -> onRequestBody(req.getRequestBody());
        case REQUEST_TRAILERS -> onRequestTrailers();
        case RESPONSE_HEADERS -> onResponseHeaders(req);
        case RESPONSE_BODY -> onResponseBody(req.getResponseBody());
        case RESPONSE_TRAILERS -> {
          out.onNext(Frames.responseTrailers());
          finish(responseStatus);
        }
        default -> LOG.warn("request {}: ignoring ext_proc message without a request case", requestId);
      }
    } catch (RuntimeException e) {
      LOG.error("request {}: internal error while processing {}", requestId, req.getRequestCase(), e);
      reject(new ErrorReply(500, "server_error", "internal_error", "the gateway failed to process the request"), null);
    }
  }

  private void onRequestHeaders(ProcessingRequest req) {
    BodySendMode requestMode = BodySendMode.FULL_DUPLEX_STREAMED;
    if (req.hasProtocolConfig()) {
      requestMode = req.getProtocolConfig().getRequestBodyMode();
      fullDuplexRequest = requestMode == BodySendMode.FULL_DUPLEX_STREAMED;
      fullDuplexResponse = req.getProtocolConfig().getResponseBodyMode() == BodySendMode.FULL_DUPLEX_STREAMED;
    }
    HttpHeaders h = req.getRequestHeaders();
    timing = new ResponseTiming(System.nanoTime());
    headers = IncomingRequest.headers(h.getHeaders());
    requestId = headers.get(EppProtocol.REQUEST_ID);
    if (requestId == null || requestId.isBlank()) {
      requestId = UUID.randomUUID().toString();
      requestIdGenerated = true;
    }
    spoofed = IncomingRequest.spoofedRoutingHeaders(headers);
    if (!spoofed.isEmpty()) {
      LOG.warn("request {}: removed client-supplied routing headers {}", requestId, spoofed);
    }
    subset = IncomingRequest.subsetHint(req.getMetadataContext());
    if (!h.getEndOfStream() && !ROUTABLE_BODY_MODES.contains(requestMode)) {
      LOG.error("request {}: the proxy sends the request body in mode {}, in which the body cannot decide the route; "
          + "configure request_body_mode FULL_DUPLEX_STREAMED (or BUFFERED)", requestId, requestMode);
      reject(new ErrorReply(500, "server_error", "unsupported_body_mode",
          "the gateway's proxy is misconfigured: request body mode " + requestMode + " cannot be routed"), null);
    } else if (h.getEndOfStream()) {
      answerWithoutBody();
    } else if (!fullDuplexRequest) {
      out.onNext(Frames.requestHeaders(baseMutations().build()));
    }
  }

  /** A request without a body cannot name a model; {@code GET /v1/models} is answered from the routes. */
  private void answerWithoutBody() {
    String path = headers.getOrDefault(":path", "");
    if ("GET".equals(headers.get(":method")) && (path.equals("/v1/models") || path.startsWith("/v1/models?"))) {
      closed = true;
      out.onNext(Frames.immediate(200, ModelList.json(deps.datastore().topology()), requestId, "model_list"));
      deps.metrics().requestDone("", "", "", "200");
      return;
    }
    reject(ErrorReply.badRequest("missing_model", "request has no body; a JSON body with 'model' is required"), null);
  }

  private void onRequestBody(HttpBody chunk) {
    if (decided) {
      return;
    }
    ByteString bytes = chunk.getBody();
    if ((long) body.size() + bytes.size() > deps.maxBodyBytes()) {
      reject(ErrorReply.tooLarge(deps.maxBodyBytes()), null);
      return;
    }
    body.append(bytes);
    extractor.feed(bytes.asReadOnlyByteBuffer());
    if (chunk.getEndOfStream()) {
      bodyEnded = true;
      decide();
    } else if (!fullDuplexRequest) {
      // BUFFERED_PARTIAL sends what fit in the proxy's buffer and expects an answer now: the rest never reaches us.
      reject(new ErrorReply(413, "invalid_request_error", "request_too_large",
          "request body is larger than the proxy's buffer (" + body.size() + " bytes arrived)"), null);
    }
  }

  private void onRequestTrailers() {
    if (!decided) {
      decide();
    }
    if (awaiting) {
      trailersPending = true; // answered after the routing decision, in order
    } else if (!closed) {
      out.onNext(Frames.requestTrailers());
    }
  }

  private void decide() {
    decided = true;
    Object scanned = extractor.finish();
    if (scanned instanceof BodyProblem p) {
      reject(ErrorReply.badRequest(p == BodyProblem.NO_MODEL ? "missing_model" : "invalid_body", p.message()), null);
      return;
    }
    ExtractedBody found = (ExtractedBody) scanned;
    long t0 = System.nanoTime();
    try {
      hints = RequestHints.parse(headers, subset, timing.arrivalNanos());
    } catch (RequestHints.BadHeader e) {
      reject(ErrorReply.badRequest("invalid_header", e.getMessage()), found.model());
      return;
    }
    RoutingResult result = deps.router().route(found, body, hints, Stage.FRESH);
    deps.metrics().decisionSeconds((System.nanoTime() - t0) / 1e9);
    act(result, found);
  }

  private void act(RoutingResult result, ExtractedBody found) {
    switch (result) {
      case RoutingResult.Rejected r -> reject(r.reply(), r.route() == null ? null : r.route().modelName());
      case RoutingResult.Routed r -> forward(r);
      case RoutingResult.AwaitingLoad w -> awaitLoad(w, found);
      case RoutingResult.Queued q -> awaitDispatch(q, found);
    }
  }

  /**
   * The pool has no room: the stream waits in flow control without holding a thread. Dispatched, the request is
   * routed as decided at arrival; refused, evicted or expired, it is answered with the reason. A client that goes away
   * leaves the queue at once (see {@link #onError}).
   */
  private void awaitDispatch(RoutingResult.Queued q, ExtractedBody found) {
    awaiting = true;
    ticket = q.ticket();
    ticket.dispatched().whenComplete((ignored, error) -> {
      synchronized (this) {
        awaiting = false;
        ticket = null;
        if (closed || streamEnded) {
          return;
        }
        if (error != null) {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          if (cause instanceof FlowRejection r) {
            reject(r.reply(), q.route().modelName());
          } else if (!(cause instanceof java.util.concurrent.CancellationException)) {
            LOG.error("request {}: flow control failed", requestId, cause);
            reject(new ErrorReply(500, "server_error", "internal_error", "the gateway failed to process the request"),
                null);
          }
          return;
        }
        continueWith(() -> deps.router().route(found, body, hints, new Stage.Dispatched(q.choice())), found,
            "after waiting in flow control");
      }
    });
  }

  /** Routes again after a wait, answers the trailers held meanwhile, and never lets an exception escape the callback. */
  private void continueWith(java.util.function.Supplier<RoutingResult> next, ExtractedBody found, String when) {
    try {
      act(next.get(), found); // routed, waiting again (a load), or rejected (the pod may have gone meanwhile)
      if (trailersPending && !closed && !awaiting) {
        out.onNext(Frames.requestTrailers());
      }
    } catch (RuntimeException e) {
      LOG.error("request {}: internal error {}", requestId, when, e);
      reject(new ErrorReply(500, "server_error", "internal_error", "the gateway failed to process the request"), null);
    }
  }

  /**
   * The adapter is being loaded for this request (and any others that want it): the stream waits, bounded by
   * --load-wait-timeout, without holding a thread, then routes to the pod that loaded it or answers 503 naming the
   * adapter and why.
   */
  private void awaitLoad(RoutingResult.AwaitingLoad w, ExtractedBody found) {
    awaiting = true;
    long started = System.nanoTime();
    var timeout = deps.router().loadWaitTimeout();
    w.address().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((address, error) -> {
      synchronized (this) {
        awaiting = false;
        deps.metrics().cacheMissWaitSeconds((System.nanoTime() - started) / 1e9);
        if (closed || streamEnded) {
          return;
        }
        if (error != null) {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          String why = cause instanceof TimeoutException ? "it was not loaded within " + timeout : cause.getMessage();
          reject(ErrorReply.unavailable("adapter_unavailable", "adapter '" + w.target() + "' for model '"
              + found.model() + "' is unavailable: " + why), w.route().modelName());
          return;
        }
        continueWith(() -> deps.router().route(found, body, hints, new Stage.Loaded(w.choice(), address)), found,
            "after loading adapter " + w.target());
      }
    });
  }

  private void forward(RoutingResult.Routed r) {
    routed = r;
    timing.dispatched(System.nanoTime());
    String destination = r.decision().destinationValue();
    String header = deps.headerCarriesFallbacks() ? destination : r.decision().primary().address();
    CommonResponse.Builder common = baseMutations().setClearRouteCache(true);
    HeaderMutation.Builder mutation = common.getHeaderMutationBuilder();
    mutation.addSetHeaders(Frames.setHeader(EppProtocol.DESTINATION, header));
    mutation.addSetHeaders(Frames.setHeader(EppProtocol.ROUTE, r.route().namespace() + "/" + r.route().name()));
    if (r.rewritten()) {
      mutation.addSetHeaders(Frames.setHeader("content-length", Integer.toString(r.body().size())));
    }
    Struct metadata = Frames.destinationMetadata(destination);
    LOG.debug("request {}: model {} target {} -> {}", requestId, r.requestedModel(), r.target(), destination);
    if (fullDuplexRequest) {
      out.onNext(Frames.requestHeaders(common.build(), metadata));
      List<ByteString> chunks = RequestBody.chunks(r.body(), RequestBody.MAX_CHUNK_BYTES);
      for (int i = 0; i < chunks.size(); i++) {
        out.onNext(Frames.streamedRequestBody(chunks.get(i), bodyEnded && i == chunks.size() - 1));
      }
    } else {
      if (r.rewritten()) {
        common.setBodyMutation(Frames.replaceBody(r.body()));
      }
      out.onNext(Frames.requestBody(common.build(), metadata));
    }
  }

  private void onResponseHeaders(ProcessingRequest req) {
    HttpHeaders h = req.getResponseHeaders();
    Map<String, String> response = IncomingRequest.headers(h.getHeaders());
    responseStatus = response.getOrDefault(":status", "0");
    CommonResponse.Builder common = CommonResponse.newBuilder();
    if (routed != null) {
      String served = IncomingRequest.servedEndpoint(req.getMetadataContext());
      if (served != null) {
        routed.lease().moveTo(served);
      }
      HeaderMutation.Builder mutation = HeaderMutation.newBuilder();
      if (routed.rewritten()) {
        rewriter = new ResponseModelRewriter(routed.target(), routed.requestedModel());
        mutation.addRemoveHeaders("content-length");
      }
      if (routed.choice().variant() != null) {
        mutation.addSetHeaders(Frames.setHeader(EppProtocol.VARIANT, routed.target()));
        if (!routed.choice().unmet().isEmpty()) {
          mutation.addSetHeaders(Frames.setHeader(EppProtocol.REQUIREMENTS_UNMET,
              String.join("; ", routed.choice().unmet())));
        }
      }
      if (mutation.getRemoveHeadersCount() > 0 || mutation.getSetHeadersCount() > 0) {
        common.setHeaderMutation(mutation);
      }
    }
    usage = new UsageSniffer(response.get("content-type"));
    out.onNext(Frames.responseHeaders(common.build()));
    if (h.getEndOfStream()) {
      finish(responseStatus);
    }
  }

  private void onResponseBody(HttpBody chunk) {
    boolean eos = chunk.getEndOfStream();
    timing.bytes(System.nanoTime(), chunk.getBody().size());
    if (usage != null) {
      usage.accept(chunk.getBody(), eos);
    }
    ByteString passed = rewriter == null ? chunk.getBody() : rewriter.apply(chunk.getBody(), eos || !fullDuplexResponse);
    if (fullDuplexResponse) {
      out.onNext(Frames.streamedResponseBody(passed, eos));
    } else {
      out.onNext(Frames.responseBody(rewriter == null
          ? CommonResponse.getDefaultInstance()
          : CommonResponse.newBuilder().setBodyMutation(Frames.replaceBody(passed)).build()));
    }
    if (eos) {
      finish(responseStatus);
    }
  }

  private CommonResponse.Builder baseMutations() {
    CommonResponse.Builder common = CommonResponse.newBuilder();
    HeaderMutation.Builder m = common.getHeaderMutationBuilder();
    for (String name : spoofed) {
      if (!name.equals(EppProtocol.DESTINATION) && !name.equals(EppProtocol.ROUTE)) {
        m.addRemoveHeaders(name);
      }
    }
    if (requestIdGenerated) {
      m.addSetHeaders(Frames.setHeader(EppProtocol.REQUEST_ID, requestId));
    }
    return common;
  }

  private void reject(ErrorReply reply, String model) {
    if (closed) {
      return;
    }
    closed = true;
    if (reply.status() == 429) {
      LOG.debug("request {}: 429 {} ({})", requestId, reply.code(), reply.message()); // shedding is counted, not logged
    } else {
      LOG.info("request {}: {} {} ({})", requestId, reply.status(), reply.code(), reply.message());
    }
    out.onNext(Frames.immediate(reply, requestId));
    if (routed != null) {
      finish(Integer.toString(reply.status()));
    } else {
      deps.metrics().requestDone(model == null ? "" : model, "", "", Integer.toString(reply.status()));
    }
  }

  private void finish(String code) {
    if (finished || routed == null) {
      return;
    }
    finished = true;
    routed.lease().release();
    deps.flow().signal(); // a pod has room for one more
    if ("200".equals(code)) {
      var observed = timing.complete(routed, usage, System.nanoTime());
      if (observed != null) {
        deps.latency().observe(observed);
      }
    }
    deps.metrics().requestDone(routed.requestedModel(), routed.target(),
        Integer.toString(routed.route().adapter().priority()), code);
    if (usage != null && usage.usage() != null) {
      deps.metrics().tokens(routed.requestedModel(), usage.usage());
    }
  }

  @Override
  public synchronized void onError(Throwable t) {
    streamEnded = true;
    leaveQueue();
    Status s = Status.fromThrowable(t);
    if (routed != null && !finished) {
      LOG.info("request {}: stream ended by the proxy ({}) before the response completed", requestId, s.getCode());
    }
    finish(s.getCode() == Status.Code.CANCELLED ? "cancelled" : "error");
  }

  @Override
  public synchronized void onCompleted() {
    streamEnded = true;
    leaveQueue();
    finish("incomplete");
    out.onCompleted();
  }

  /** The client went away while its request waited: it leaves the queue now, not at its TTL. */
  private void leaveQueue() {
    if (ticket != null) {
      ticket.cancel();
      ticket = null;
    }
  }
}
