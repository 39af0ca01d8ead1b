package io.llmgw.extproc.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Routed;
import java.util.List;

/**
 * The request side's answers: the header mutations every answer carries (client-supplied routing headers removed, a
 * generated request id added), and the routing answer: the destination as header and {@code envoy.lb} metadata (and,
 * for a request split across a prefill and a decode pod, the prefill pod in {@code x-prefiller-host-port}), then,
 * in FULL_DUPLEX_STREAMED mode, the body in chunks (in BUFFERED mode the answer travels in the body response).
 *
 * @param spoofed routing headers the client sent, which the answer removes
 * @param generatedRequestId the request id the EPP made for a request that came without one, or null
 */
record RoutingAnswer(List<String> spoofed, String generatedRequestId) {
  static final RoutingAnswer NONE = new RoutingAnswer(List.of(), null);
  static final String TRACEPARENT = "traceparent";

  /** Header mutations for any answer to the request's headers or body. */
  CommonResponse.Builder baseMutations() {
    return baseMutations(false);
  }

  /** @param settingPrefiller the answer sets the prefill pod's header, which overwrites the client's instead */
  private CommonResponse.Builder baseMutations(boolean settingPrefiller) {
    CommonResponse.Builder common = CommonResponse.newBuilder();
    HeaderMutation.Builder m = common.getHeaderMutationBuilder();
    for (String name : spoofed) {
      // the headers the answer sets overwrite what the client sent (a set and a remove of one name would race)
      if (!name.equals(EppProtocol.DESTINATION) && !name.equals(EppProtocol.ROUTE)
          && !(settingPrefiller && name.equals(EppProtocol.PREFILLER))) {
        m.addRemoveHeaders(name);
      }
    }
    if (generatedRequestId != null) {
      m.addSetHeaders(Frames.setHeader(EppProtocol.REQUEST_ID, generatedRequestId));
    }
    return common;
  }

  /**
   * Sends the frames that route the request where {@code r} says, straight to the stream (no list per request).
   *
   * @param withFallbacks the destination lists the fallbacks after the primary
   * @param hooks whether to add the candidates' scores to the metadata
   * @param bodyEnded the body ended on a body frame (not at trailers): its last re-emitted chunk ends the stream
   */
  void send(StreamObserver<ProcessingResponse> out, RequestContext ctx, Routed r, boolean withFallbacks,
      WireHooks hooks, boolean fullDuplex, boolean bodyEnded) {
    // the protocol forbids different values in the header and the metadata: proxies may read either
    String destination = withFallbacks ? r.decision().destinationValue() : r.decision().primary().address();
    DestinationFrames.Destination frames = DestinationFrames.destination(destination);
    String prefiller = r.prefillAddress();
    CommonResponse.Builder common = baseMutations(prefiller != null).setClearRouteCache(true);
    HeaderMutation.Builder mutation = common.getHeaderMutationBuilder();
    mutation.addSetHeaders(frames.header());
    mutation.addSetHeaders(DestinationFrames.route(ctx.route().key()));
    if (prefiller != null) {
      // llm-d's protocol: the decode pod's side asks this pod for the prompt's KV cache first
      mutation.addSetHeaders(Frames.setHeader(EppProtocol.PREFILLER, prefiller));
    }
    if (ctx.trace() != null) {
      // the model server's spans become children of this request's
      mutation.addSetHeaders(Frames.setHeader(TRACEPARENT, ctx.trace().traceparent()));
    }
    if (ctx.rewritten()) {
      mutation.addSetHeaders(Frames.setHeader("content-length", Integer.toString(r.body().size())));
    }
    Struct metadata = hooks.emitEndpointScores() && r.scored() != null
        ? Frames.withScores(frames.metadata(), r.scored())
        : frames.metadata();
    if (!fullDuplex) {
      if (ctx.rewritten()) {
        common.setBodyMutation(Frames.replaceBody(r.body()));
      }
      out.onNext(Frames.requestBody(common.build(), metadata));
      return;
    }
    List<ByteString> chunks = RequestBody.chunks(r.body(), RequestBody.MAX_CHUNK_BYTES);
    out.onNext(Frames.requestHeaders(common.build(), metadata));
    for (int i = 0; i < chunks.size(); i++) {
      out.onNext(Frames.streamedRequestBody(chunks.get(i), bodyEnded && i == chunks.size() - 1));
    }
  }
}
