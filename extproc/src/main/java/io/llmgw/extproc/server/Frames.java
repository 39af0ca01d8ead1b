package io.llmgw.extproc.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HeadersResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.StreamedBodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.TrailersResponse;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.llmgw.api.DropReason;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.picker.Scored;
import java.nio.charset.StandardCharsets;

/** Builders for the ext_proc messages the EPP sends. Header values go in {@code raw_value} only (envoy#31555). */
final class Frames {
  private Frames() {}

  static HeaderValueOption setHeader(String name, String value) {
    return HeaderValueOption.newBuilder()
        .setHeader(
            HeaderValue.newBuilder().setKey(name).setRawValue(ByteString.copyFrom(value, StandardCharsets.UTF_8)))
        .setAppendAction(HeaderValueOption.HeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD)
        .build();
  }

  static ProcessingResponse requestHeaders(CommonResponse common) {
    return ProcessingResponse.newBuilder().setRequestHeaders(HeadersResponse.newBuilder().setResponse(common)).build();
  }

  static ProcessingResponse requestHeaders(CommonResponse common, Struct metadata) {
    return ProcessingResponse.newBuilder()
        .setRequestHeaders(HeadersResponse.newBuilder().setResponse(common))
        .setDynamicMetadata(metadata)
        .build();
  }

  static ProcessingResponse requestBody(CommonResponse common, Struct metadata) {
    return ProcessingResponse.newBuilder()
        .setRequestBody(BodyResponse.newBuilder().setResponse(common))
        .setDynamicMetadata(metadata)
        .build();
  }

  static ProcessingResponse streamedRequestBody(ByteString chunk, boolean endOfStream) {
    return ProcessingResponse.newBuilder()
        .setRequestBody(BodyResponse.newBuilder().setResponse(streamed(chunk, endOfStream)))
        .build();
  }

  static ProcessingResponse streamedResponseBody(ByteString chunk, boolean endOfStream) {
    return ProcessingResponse.newBuilder()
        .setResponseBody(BodyResponse.newBuilder().setResponse(streamed(chunk, endOfStream)))
        .build();
  }

  static ProcessingResponse responseBody(CommonResponse common) {
    return ProcessingResponse.newBuilder().setResponseBody(BodyResponse.newBuilder().setResponse(common)).build();
  }

  static ProcessingResponse responseHeaders(CommonResponse common) {
    return ProcessingResponse.newBuilder().setResponseHeaders(HeadersResponse.newBuilder().setResponse(common)).build();
  }

  static ProcessingResponse requestTrailers() {
    return ProcessingResponse.newBuilder().setRequestTrailers(TrailersResponse.getDefaultInstance()).build();
  }

  static ProcessingResponse responseTrailers() {
    return ProcessingResponse.newBuilder().setResponseTrailers(TrailersResponse.getDefaultInstance()).build();
  }

  private static CommonResponse streamed(ByteString chunk, boolean endOfStream) {
    return CommonResponse.newBuilder()
        .setBodyMutation(BodyMutation.newBuilder()
            .setStreamedResponse(StreamedBodyResponse.newBuilder().setBody(chunk).setEndOfStream(endOfStream)))
        .build();
  }

  static BodyMutation replaceBody(ByteString body) {
    return BodyMutation.newBuilder().setBody(body).build();
  }

  static ProcessingResponse immediate(ErrorReply reply, String requestId) {
    return immediate(reply.status(), reply.json(), requestId, reply.code().wire(), reply.retryAfterSeconds(),
        reply.dropReason());
  }

  static ProcessingResponse immediate(int status, String jsonBody, String requestId, String details) {
    return immediate(status, jsonBody, requestId, details, 0, null);
  }

  private static ProcessingResponse immediate(int status, String jsonBody, String requestId, String details,
      int retryAfterSeconds, String dropReason) {
    HeaderMutation.Builder headers = HeaderMutation.newBuilder()
        .addSetHeaders(setHeader("content-type", "application/json"));
    if (requestId != null) {
      headers.addSetHeaders(setHeader(EppProtocol.REQUEST_ID, requestId));
    }
    if (retryAfterSeconds > 0) {
      headers.addSetHeaders(setHeader("retry-after", Integer.toString(retryAfterSeconds)));
    }
    if (dropReason != null) {
      headers.addSetHeaders(setHeader(DropReason.HEADER, dropReason));
    }
    return ProcessingResponse.newBuilder()
        .setImmediateResponse(ImmediateResponse.newBuilder()
            .setStatus(HttpStatus.newBuilder().setCodeValue(status))
            .setHeaders(headers)
            .setBody(ByteString.copyFrom(jsonBody, StandardCharsets.UTF_8))
            .setDetails(details))
        .build();
  }

  /**
   * The destination metadata with every scored candidate's weighted score beside it, as llm-d emits them: {@code
   * envoy.lb: {x-gateway-destination-endpoint: …, x-gateway-destination-endpoint-scores: {"ip:port": score, …}}}.
   */
  static Struct withScores(Struct destination, Scored scored) {
    Struct.Builder scores = Struct.newBuilder();
    for (int i = 0; i < scored.candidates().size(); i++) {
      double score = scored.totals()[i];
      scores.putFields(scored.candidates().get(i).address(),
          Value.newBuilder().setNumberValue(Double.isFinite(score) ? score : 0).build());
    }
    Struct lb = destination.getFieldsOrThrow(EppProtocol.LB_NAMESPACE).getStructValue().toBuilder()
        .putFields(EppProtocol.ENDPOINT_SCORES, Value.newBuilder().setStructValue(scores).build()).build();
    return destination.toBuilder().putFields(EppProtocol.LB_NAMESPACE, Value.newBuilder().setStructValue(lb).build())
        .build();
  }

  /** A response headers answer with one more header set: the conformance hook's served endpoint. */
  static ProcessingResponse withResponseHeader(ProcessingResponse headers, String name, String value) {
    ProcessingResponse.Builder b = headers.toBuilder();
    b.getResponseHeadersBuilder().getResponseBuilder().getHeaderMutationBuilder().addSetHeaders(setHeader(name, value));
    return b.build();
  }

  /** {@code envoy.lb: {x-gateway-destination-endpoint: "<value>"}} */
  static Struct destinationMetadata(String destination) {
    return Struct.newBuilder()
        .putFields(EppProtocol.LB_NAMESPACE, Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields(EppProtocol.DESTINATION, Value.newBuilder().setStringValue(destination).build())).build())
        .build();
  }
}
