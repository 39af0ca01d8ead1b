package io.llmgw.extproc.server;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.ClientText;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.llmgw.extproc.body.BodyProblem;
import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Director;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.RequestState;
import io.llmgw.extproc.request.Routed;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.tenancy.controller.TenantIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The Endpoint Picker Protocol for one HTTP request: frames in, frames out; the decision is the {@link
 * Director}'s. Request side: headers are held (FULL_DUPLEX_STREAMED) until the body has ended,
 * then the routing answer goes out as header mutation + {@code envoy.lb} metadata, followed by the body in chunks; in
 * BUFFERED mode the answer travels in the body response. Response side: every chunk passes through
 * ({@link ResponseRelay}). The request's {@link RequestState} says what a frame may still do; the exchange ends exactly
 * once, whichever way the stream ends, and every response hook hears of it then.
 */
final class ExtProcStream implements StreamObserver<ProcessingRequest> {
  private static final Set<BodySendMode> ROUTABLE_BODY_MODES = Set.of(BodySendMode.FULL_DUPLEX_STREAMED,
      BodySendMode.BUFFERED, BodySendMode.BUFFERED_PARTIAL);

  private final StreamObserver<ProcessingResponse> out;
  private final StreamDeps deps;
  private final RequestContext ctx;
  private final BodyIntake intake = new BodyIntake();
  private final ExchangeEnd end;
  private boolean fullDuplexRequest = true;
  private ResponseRelay relay = new ResponseRelay(true);
  private RoutingAnswer headerFixes = RoutingAnswer.NONE;
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
    this.end = new ExchangeEnd(out, deps, ctx, slot, intake.body());
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
      internalError("while processing " + req.getRequestCase(), e);
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
    boolean generated = requestId.isBlank();
    if (generated) {
      requestId = UUID.randomUUID().toString();
    }
    Set<String> selected = deps.hooks().conformanceTestHooks() ? IncomingRequest.testSelection(headers) : null;
    ctx.received(requestId, headers,
        selected != null ? selected : IncomingRequest.subsetHint(req.getMetadataContext()));
    ctx.trace(deps.tracing().begin(headers, requestId));
    if (!slot.admitted()) {
      answer(ErrorReply.tooManyStreams(deps.limits().maxStreams()));
      return;
    }
    List<String> spoofed = IncomingRequest.spoofedRoutingHeaders(headers);
    // the explain header may carry the read token, the tenant's are the gateway's: they never reach the pod
    List<String> removed = spoofed;
    if (headers.containsKey(DecisionLog.ASK_HEADER) || deps.identity().on()) {
      removed = new ArrayList<>(spoofed); // spoofed is logged as such below
      if (headers.containsKey(DecisionLog.ASK_HEADER)) {
        removed.add(DecisionLog.ASK_HEADER);
      }
      IncomingRequest.gatewayHeaders(headers, deps.identity(), removed);
    }
    headerFixes = new RoutingAnswer(removed, generated ? requestId : null);
    if (!spoofed.isEmpty()) {
      StreamLog.spoofed(requestId, spoofed);
    }
    TenantIdentity.Result who = deps.identity().on() && !RequestShape.isHealthCheck(headers)
        ? deps.identity().identify(headers) : null;
    if (who != null) {
      ctx.tenant(who.tenant());
    }
    ErrorReply misshapen = who != null && who.refusal() != null ? who.refusal() : RequestShape.refusal(headers);
    if (misshapen != null) {
      answer(misshapen);
    } else if (!h.getEndOfStream() && !ROUTABLE_BODY_MODES.contains(requestMode)) {
      StreamLog.unroutableBodyMode(requestId, requestMode);
      answer(new ErrorReply(500, ErrorCode.UNSUPPORTED_BODY_MODE,
          "the gateway's proxy is misconfigured: request body mode " + requestMode + " cannot be routed"));
    } else if (h.getEndOfStream()) {
      BodylessAnswer a = BodylessAnswer.to(headers, deps.datastore().topology(), who == null ? null : who.tenant());
      if (a.error() != null) {
        answer(a.error());
      } else {
        end.answerOk(a.json(), a.details());
      }
    } else if (!fullDuplexRequest) {
      out.onNext(Frames.requestHeaders(headerFixes.baseMutations().build()));
    }
  }

  private void onRequestBody(HttpBody chunk) {
    if (ctx.state() != RequestState.RECEIVING) {
      return;
    }
    ErrorReply refusal = intake.take(chunk.getBody(), deps, slot);
    if (refusal != null) {
      answer(refusal);
    } else if (chunk.getEndOfStream()) {
      bodyEnded = true;
      decide();
    } else if (!fullDuplexRequest) {
      answer(intake.cutByProxy());
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
    switch (intake.scanned()) {
      case BodyProblem problem -> answer(BodyIntake.refusal(problem));
      case ExtractedBody found -> {
        ctx.bodyComplete(found, intake.body(), deps.bytesPerToken());
        apply(deps.director().start(ctx));
      }
    }
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
        internalError("while waiting in state " + ctx.state(), error);
        return;
      }
      apply(deps.director().resume(ctx, resumption));
      if (trailersHeld && !ctx.state().waiting() && ctx.state() != RequestState.ANSWERED) {
        trailersHeld = false;
        out.onNext(Frames.requestTrailers());
      }
    } catch (RuntimeException e) {
      internalError("after waiting", e);
    }
  }

  private void forward(Routed r) {
    deps.vitals().decided();
    StreamLog.routed(ctx.requestId(), ctx.requestedModel(), ctx.choice().target(), r.decision().primary().address());
    headerFixes.send(out, ctx, r, deps.destinationFallbacks(), deps.hooks(), fullDuplexRequest, bodyEnded);
    intake.body().discard(); // sent on: a long response must not keep the prompt reachable
  }

  private void onResponseHeaders(ProcessingRequest req) {
    HttpHeaders h = req.getResponseHeaders();
    boolean routed = ctx.state() == RequestState.ROUTED;
    if (routed) {
      ctx.moveTo(RequestState.RESPONDING);
      deps.director().responseStarted(ctx, IncomingRequest.servedEndpoint(req.getMetadataContext()));
    }
    ProcessingResponse answer = relay.headers(IncomingRequest.header(h.getHeaders(), ":status"),
        IncomingRequest.header(h.getHeaders(), "content-type"), routed ? ctx : null);
    String served = deps.hooks().conformanceTestHooks() ? IncomingRequest.servedEndpoint(req.getMetadataContext())
        : null;
    out.onNext(served == null ? answer : Frames.withResponseHeader(answer, EppProtocol.TEST_SERVED_ENDPOINT, served));
    if (h.getEndOfStream()) {
      finish(relay.status());
    }
  }

  private void onResponseBody(HttpBody chunk) {
    if (ctx.timing().bytes(chunk.getBody().size()) && ctx.state() == RequestState.RESPONDING) {
      deps.director().firstBytes(ctx);
    }
    out.onNext(relay.body(chunk));
    if (chunk.getEndOfStream()) {
      finish(relay.status());
    }
  }

  /** The client broke the protocol's order: the stream ends INVALID_ARGUMENT, and a routed request stops counting. */
  private void refuse(String violation) {
    refused = true;
    slot.close();
    StreamLog.outOfOrder(ctx.requestId(), violation);
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

  private void internalError(String when, Throwable e) {
    StreamLog.internalError(ctx.requestId(), when, e);
    deps.vitals().internalError();
    answer(ErrorReply.internal());
  }

  private void answer(ErrorReply reply) {
    end.answer(reply);
  }

  private void finish(String code) {
    end.finish(code, relay);
  }

  @Override
  public synchronized void onError(Throwable t) {
    slot.close();
    Status s = Status.fromThrowable(t);
    if (ctx.state().routed()) {
      StreamLog.endedByProxy(ctx.requestId(), s.getCode());
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
