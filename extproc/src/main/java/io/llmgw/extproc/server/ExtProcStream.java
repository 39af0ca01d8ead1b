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
import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.latency.RequestTiming;
import io.llmgw.api.ClientText;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.ErrorReply;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.RequestState;
import io.llmgw.extproc.request.Routed;
import io.llmgw.extproc.request.Step;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import io.llmgw.extproc.observe.LogSampler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Endpoint Picker Protocol for one HTTP request: frames in, frames out; the decision is the {@link
 * io.llmgw.extproc.request.Director}'s. Request side: headers are held (FULL_DUPLEX_STREAMED) until the body has ended,
 * then the routing answer goes out as header mutation + {@code envoy.lb} metadata, followed by the body in chunks; in
 * BUFFERED mode the answer travels in the body response. Response side: every chunk passes through
 * ({@link ResponseRelay}). The request's {@link RequestState} says what a frame may still do; the exchange ends exactly
 * once, whichever way the stream ends, and every response hook hears of it then.
 */
final class ExtProcStream implements StreamObserver<ProcessingRequest> {
  private static final Logger LOG = LoggerFactory.getLogger(ExtProcStream.class);
  private static final LogSampler SAMPLED = LogSampler.everyTenSeconds();
  private static final Set<BodySendMode> ROUTABLE_BODY_MODES =
      Set.of(BodySendMode.FULL_DUPLEX_STREAMED, BodySendMode.BUFFERED, BodySendMode.BUFFERED_PARTIAL);

  private final StreamObserver<ProcessingResponse> out;
  private final StreamDeps deps;
  private final RequestContext ctx;
  private final ModelExtractor extractor = new ModelExtractor();
  private final RequestBody body = new RequestBody();
  private boolean fullDuplexRequest = true;
  private ResponseRelay relay = new ResponseRelay(true);
  private boolean requestIdGenerated;
  private List<String> spoofed = List.of();
  /** The body ended on a body frame (not at trailers): the re-emitted body's last chunk ends the stream. */
  private boolean bodyEnded;
  /** Request trailers came while the request waited: they are answered after its routing answer, in order. */
  private boolean trailersHeld;
  private boolean refused;
  private final StreamLimits.Slot slot;

  ExtProcStream(StreamObserver<ProcessingResponse> out, StreamDeps deps) {
    this.out = out;
    this.deps = deps;
    this.ctx = new RequestContext(deps.ticker());
    this.slot = deps.limits().open(this::idleTimedOut);
  }

  @Override
  public synchronized void onNext(ProcessingRequest req) {
    if (ctx.state() == RequestState.ANSWERED || refused) {
      return;
    }
    slot.frame();
    String violation = ProtocolOrder.violation(req.getRequestCase(), ctx.headersArrived(), ctx.state());
    if (violation != null) {
      refuse(violation);
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
          finish(relay.status());
        }
        default -> throw new IllegalStateException("unreachable: ProtocolOrder refuses " + req.getRequestCase());
      }
    } catch (RuntimeException e) {
      LOG.error("request {}: internal error while processing {}", ctx.requestId(), req.getRequestCase(), e);
      deps.vitals().internalError();
      answer(ErrorReply.internal());
    }
  }

  private void onRequestHeaders(ProcessingRequest req) {
    BodySendMode requestMode = BodySendMode.FULL_DUPLEX_STREAMED;
    if (req.hasProtocolConfig()) {
      requestMode = req.getProtocolConfig().getRequestBodyMode();
      fullDuplexRequest = requestMode == BodySendMode.FULL_DUPLEX_STREAMED;
      relay = new ResponseRelay(req.getProtocolConfig().getResponseBodyMode() == BodySendMode.FULL_DUPLEX_STREAMED);
    }
    HttpHeaders h = req.getRequestHeaders();
    Map<String, String> headers = IncomingRequest.headers(h.getHeaders());
    String requestId = ClientText.clean(headers.get(EppProtocol.REQUEST_ID));
    if (requestId.isBlank()) {
      requestId = UUID.randomUUID().toString();
      requestIdGenerated = true;
    }
    ctx.received(requestId, headers, IncomingRequest.subsetHint(req.getMetadataContext()));
    if (!slot.admitted()) {
      answer(ErrorReply.tooManyStreams(deps.limits().maxStreams()));
      return;
    }
    spoofed = IncomingRequest.spoofedRoutingHeaders(headers);
    if (!spoofed.isEmpty()) {
      LOG.warn("request {}: removed client-supplied routing headers {}", requestId, spoofed);
    }
    if (!h.getEndOfStream() && !ROUTABLE_BODY_MODES.contains(requestMode)) {
      LOG.error("request {}: the proxy sends the request body in mode {}, in which the body cannot decide the route; "
          + "configure request_body_mode FULL_DUPLEX_STREAMED (or BUFFERED)", requestId, requestMode);
      answer(new ErrorReply(500, "server_error", "unsupported_body_mode",
          "the gateway's proxy is misconfigured: request body mode " + requestMode + " cannot be routed"));
    } else if (h.getEndOfStream()) {
      answerWithoutBody(headers);
    } else if (!fullDuplexRequest) {
      out.onNext(Frames.requestHeaders(baseMutations().build()));
    }
  }

  /**
   * A request without a body names no model: {@code GET /v1/models} and {@code /v1/models/{model}} are answered from the
   * routes, {@code GET /health} says the gateway is up, an inference path is told its body is missing, and any other
   * path is not one the gateway serves.
   */
  private void answerWithoutBody(Map<String, String> headers) {
    String path = headers.getOrDefault(":path", "");
    String method = headers.getOrDefault(":method", "");
    boolean get = "GET".equals(method);
    if (get && (path.equals("/v1/models") || path.startsWith("/v1/models?"))) {
      answerOk(ModelList.json(deps.datastore().topology()), "model_list");
    } else if (get && path.startsWith("/v1/models/")) {
      String model = ModelList.modelOf(path);
      String found = model == null ? null : ModelList.one(deps.datastore().topology(), model);
      if (found != null) {
        answerOk(found, "model");
      } else {
        answer(ErrorReply.modelNotFound(model == null ? path : model));
      }
    } else if (get && (path.equals("/health") || path.startsWith("/health?"))) {
      answerOk("{\"status\":\"ok\"}", "health");
    } else if (INFERENCE_PATHS.contains(path.split("\\?", 2)[0])) {
      answer(ErrorReply.badRequest("missing_model", "request has no body; a JSON body with 'model' is required"));
    } else {
      answer(ErrorReply.noSuchEndpoint(method, path));
    }
  }

  private static final java.util.Set<String> INFERENCE_PATHS = java.util.Set.of("/v1/chat/completions",
      "/v1/completions", "/v1/embeddings", "/v1/responses");

  private void answerOk(String json, String details) {
    ctx.moveTo(RequestState.ANSWERED);
    out.onNext(Frames.immediate(200, json, ctx.requestId(), details));
    deps.director().done(ctx, new Completion("200", null, null));
  }

  private void onRequestBody(HttpBody chunk) {
    if (ctx.state() != RequestState.RECEIVING) {
      return;
    }
    ByteString bytes = chunk.getBody();
    if ((long) body.size() + bytes.size() > deps.maxBodyBytes()) {
      answer(ErrorReply.tooLarge(deps.maxBodyBytes()));
      return;
    }
    if (!slot.reserve(bytes.size())) {
      answer(ErrorReply.bodyBudgetExhausted(deps.limits().maxBufferedBytes()));
      return;
    }
    body.append(bytes);
    extractor.feed(bytes.asReadOnlyByteBuffer());
    if (chunk.getEndOfStream()) {
      bodyEnded = true;
      decide();
    } else if (!fullDuplexRequest) {
      // BUFFERED_PARTIAL sends what fit in the proxy's buffer and expects an answer now: the rest never reaches us.
      answer(new ErrorReply(413, "invalid_request_error", "request_too_large",
          "request body is larger than the proxy's buffer (" + body.size() + " bytes arrived)"));
    }
  }

  private void onRequestTrailers() {
    if (ctx.state() == RequestState.RECEIVING) {
      decide();
    }
    if (ctx.state().waiting()) {
      trailersHeld = true;
    } else if (ctx.state() != RequestState.ANSWERED) {
      out.onNext(Frames.requestTrailers());
    }
  }

  private void decide() {
    slot.bodyDone();
    Object scanned = extractor.finish();
    if (scanned instanceof BodyProblem p) {
      answer(ErrorReply.badRequest(p == BodyProblem.NO_MODEL ? "missing_model" : "invalid_body", p.message()));
      return;
    }
    ctx.bodyComplete((ExtractedBody) scanned, body, deps.bytesPerToken());
    apply(deps.director().start(ctx));
  }

  private void apply(Step step) {
    switch (step) {
      case Step.Forward f -> forward(f.routed());
      case Step.Answer a -> answer(a.reply());
      case Step.Wait w -> w.resumption().whenComplete(this::resumed);
    }
  }

  /** A wait ended, on whichever thread ended it: go on, unless the stream ended meanwhile. */
  private synchronized void resumed(Step.Resumption resumption, Throwable error) {
    if (!ctx.state().waiting()) {
      return;
    }
    try {
      if (error != null) {
        LOG.error("request {}: waiting in state {} failed", ctx.requestId(), ctx.state(), error);
        deps.vitals().internalError();
        answer(ErrorReply.internal());
        return;
      }
      apply(deps.director().resume(ctx, resumption));
      if (trailersHeld && !ctx.state().waiting() && ctx.state() != RequestState.ANSWERED) {
        trailersHeld = false;
        out.onNext(Frames.requestTrailers());
      }
    } catch (RuntimeException e) {
      LOG.error("request {}: internal error after waiting", ctx.requestId(), e);
      deps.vitals().internalError();
      answer(ErrorReply.internal());
    }
  }

  private void forward(Routed r) {
    deps.vitals().decided();
    // the protocol forbids different values in the header and the metadata: proxies may read either
    String destination = deps.destinationFallbacks() ? r.decision().destinationValue() : r.decision().primary().address();
    CommonResponse.Builder common = baseMutations().setClearRouteCache(true);
    HeaderMutation.Builder mutation = common.getHeaderMutationBuilder();
    mutation.addSetHeaders(Frames.setHeader(EppProtocol.DESTINATION, destination));
    mutation.addSetHeaders(Frames.setHeader(EppProtocol.ROUTE, ctx.route().key().toString()));
    boolean rewritten = !ctx.choice().target().equals(ctx.requestedModel());
    if (rewritten) {
      mutation.addSetHeaders(Frames.setHeader("content-length", Integer.toString(r.body().size())));
    }
    Struct metadata = Frames.destinationMetadata(destination);
    LOG.debug("request {}: model {} target {} -> {}", ctx.requestId(), ctx.requestedModel(), ctx.choice().target(),
        destination);
    if (fullDuplexRequest) {
      out.onNext(Frames.requestHeaders(common.build(), metadata));
      List<ByteString> chunks = RequestBody.chunks(r.body(), RequestBody.MAX_CHUNK_BYTES);
      for (int i = 0; i < chunks.size(); i++) {
        out.onNext(Frames.streamedRequestBody(chunks.get(i), bodyEnded && i == chunks.size() - 1));
      }
    } else {
      if (rewritten) {
        common.setBodyMutation(Frames.replaceBody(r.body()));
      }
      out.onNext(Frames.requestBody(common.build(), metadata));
    }
    body.discard(); // sent on: a long response must not keep the prompt reachable
  }

  private void onResponseHeaders(ProcessingRequest req) {
    HttpHeaders h = req.getResponseHeaders();
    boolean routed = ctx.state() == RequestState.ROUTED;
    if (routed) {
      ctx.moveTo(RequestState.RESPONDING);
      deps.director().responseStarted(ctx, IncomingRequest.servedEndpoint(req.getMetadataContext()));
    }
    out.onNext(relay.headers(IncomingRequest.headers(h.getHeaders()), routed ? ctx : null));
    if (h.getEndOfStream()) {
      finish(relay.status());
    }
  }

  private void onResponseBody(HttpBody chunk) {
    ctx.timing().bytes(chunk.getBody().size());
    out.onNext(relay.body(chunk));
    if (chunk.getEndOfStream()) {
      finish(relay.status());
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
      m.addSetHeaders(Frames.setHeader(EppProtocol.REQUEST_ID, ctx.requestId()));
    }
    return common;
  }

  /** The client broke the protocol's order: the stream ends INVALID_ARGUMENT, and a routed request stops counting. */
  private void refuse(String violation) {
    refused = true;
    slot.close();
    LOG.warn("request {}: ext_proc frames out of order ({}); ending the stream", ctx.requestId(), violation);
    finish("error");
    out.onError(Status.INVALID_ARGUMENT.withDescription("ext_proc protocol violation: " + violation)
        .asRuntimeException());
  }

  /**
   * The request went silent while arriving ({@link StreamLimits#expireIdle}, which logs once for all): answered 408 when
   * its headers came, else the stream ends DEADLINE_EXCEEDED. Either way its slot and buffered bytes go back. Checked
   * again under the stream's lock: a frame that came meanwhile keeps the request going.
   */
  private synchronized boolean idleTimedOut() {
    if (refused || ctx.state() != RequestState.RECEIVING) {
      slot.bodyDone(); // nothing left to arrive: out of the sweep
      return false;
    }
    if (!slot.silent()) {
      return false;
    }
    if (ctx.headersArrived()) {
      answer(ErrorReply.requestTimeout(deps.limits().idleTimeout()));
      return true;
    }
    refused = true;
    slot.close();
    finish("timeout");
    out.onError(Status.DEADLINE_EXCEEDED.withDescription("no request headers within "
        + deps.limits().idleTimeout().toMillis() + " ms").asRuntimeException());
    return true;
  }

  /** The EPP answers the request itself; a request already routed stops counting in flight. */
  private void answer(ErrorReply reply) {
    if (ctx.state().terminal()) {
      return;
    }
    // counted in the metrics; logged at INFO once per kind per 10 s, so a flood of bad requests cannot flood the log
    long skipped = reply.status() == 429 || reply.status() == 408 ? -1 : SAMPLED.admit(reply.code());
    if (skipped >= 0) {
      LOG.info("request {}: {} {} ({}){}", ctx.requestId(), reply.status(), reply.code(), reply.message(),
          LogSampler.leftOut(skipped));
    } else {
      LOG.debug("request {}: {} {} ({})", ctx.requestId(), reply.status(), reply.code(), reply.message());
    }
    slot.bodyDone();
    body.discard(); // never sent on: a refused body's bytes go with its budget, not with its stream
    ctx.moveTo(RequestState.ANSWERED); // first: a cancelled wait's callback must find the request over
    ctx.cancelWait();
    out.onNext(Frames.immediate(reply, ctx.requestId()));
    deps.director().done(ctx, new Completion(Integer.toString(reply.status()), null, null));
  }

  /** The exchange is over: the response ended, or the stream did. A stream that never asked for a route is not counted. */
  private void finish(String code) {
    RequestState was = ctx.state();
    if (was.terminal()) {
      return;
    }
    ctx.moveTo(RequestState.DONE); // first: a cancelled wait's callback must find the request over
    ctx.cancelWait();
    if (was == RequestState.RECEIVING) {
      return;
    }
    RequestTiming timing = was.routed() && "200".equals(code) ? ctx.timing().complete(ctx, relay.usage()) : null;
    TokenUsage usage = relay.usage() == null ? null : relay.usage().usage();
    deps.director().done(ctx, new Completion(code, timing, usage));
  }

  @Override
  public synchronized void onError(Throwable t) {
    slot.close();
    Status s = Status.fromThrowable(t);
    if (ctx.state().routed()) {
      long skipped = SAMPLED.admit(s.getCode().name());
      if (skipped >= 0) {
        LOG.info("request {}: stream ended by the proxy ({}) before the response completed{}", ctx.requestId(),
            s.getCode(), LogSampler.leftOut(skipped));
      } else {
        LOG.debug("request {}: stream ended by the proxy ({}) before the response completed", ctx.requestId(),
            s.getCode());
      }
    }
    finish(s.getCode() == Status.Code.CANCELLED ? "cancelled" : "error");
  }

  @Override
  public synchronized void onCompleted() {
    slot.close();
    finish("incomplete");
    if (!refused) {
      out.onCompleted();
    }
  }
}
