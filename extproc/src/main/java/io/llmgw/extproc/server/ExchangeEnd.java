package io.llmgw.extproc.server;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.objectives.controller.RequestTiming;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.RequestState;

/**
 * How one exchange ends, exactly once: the EPP answers the request itself, or the exchange is over (the response
 * ended, or the stream did). The request reaches its terminal state first, so that a wait's callback arriving later
 * finds it over; then every response hook hears of it.
 */
final class ExchangeEnd {
  private final StreamObserver<ProcessingResponse> out;
  private final StreamDeps deps;
  private final RequestContext ctx;
  private final StreamLimits.Slot slot;
  private final RequestBody body;

  ExchangeEnd(StreamObserver<ProcessingResponse> out, StreamDeps deps, RequestContext ctx, StreamLimits.Slot slot,
      RequestBody body) {
    this.out = out;
    this.deps = deps;
    this.ctx = ctx;
    this.slot = slot;
    this.body = body;
  }

  /** The EPP answers the request itself; a request already routed stops counting in flight. */
  void answer(ErrorReply reply) {
    if (ctx.state().terminal()) {
      return;
    }
    StreamLog.answered(ctx.requestId(), reply);
    slot.bodyDone();
    body.discard(); // never sent on: a refused body's bytes go with its budget, not with its stream
    ctx.moveTo(RequestState.ANSWERED);
    ctx.cancelWait();
    out.onNext(Frames.immediate(reply, ctx.requestId()));
    deps.director().done(ctx, new Completion(Integer.toString(reply.status()), null, null, reply.code().wire()));
  }

  /** A 200 the EPP gives itself (the model list, health). */
  void answerOk(String json, String details) {
    ctx.moveTo(RequestState.ANSWERED);
    out.onNext(Frames.immediate(200, json, ctx.requestId(), details));
    deps.director().done(ctx, new Completion("200", null, null));
  }

  /** The exchange is over. A stream that never asked for a route is not counted. */
  void finish(String code, ResponseRelay relay) {
    RequestState was = ctx.state();
    if (was.terminal()) {
      return;
    }
    ctx.moveTo(RequestState.DONE);
    ctx.cancelWait();
    if (was == RequestState.RECEIVING) {
      return;
    }
    RequestTiming timing = was.routed() && "200".equals(code) ? ctx.timing().complete(ctx, relay.usage()) : null;
    TokenUsage usage = relay.usage() == null ? null : relay.usage().usage();
    deps.director().done(ctx, new Completion(code, timing, usage));
  }
}
