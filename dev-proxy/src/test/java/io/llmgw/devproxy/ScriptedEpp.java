package io.llmgw.devproxy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HeadersResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.StreamedBodyResponse;
import io.envoyproxy.envoy.type.v3.HttpStatus;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An ext_proc server that behaves like the EPP in outline: routes to a fixed destination list (unless the body says
 * "unknown", then 404), adds a header, upper-cases the response body, and records what the proxy reported.
 */
final class ScriptedEpp extends ExternalProcessorGrpc.ExternalProcessorImplBase {
  volatile List<String> destinations = List.of();
  /** Answers as an EPP that forgot to route: no destination header, no metadata. */
  volatile boolean omitDestination;
  final List<String> served = new CopyOnWriteArrayList<>();
  final List<String> responseStatuses = new CopyOnWriteArrayList<>();
  final List<String> protocolModes = new CopyOnWriteArrayList<>();
  /** The request header names each stream showed the EPP. */
  final List<String> headerNames = new CopyOnWriteArrayList<>();

  @Override
  public StreamObserver<ProcessingRequest> process(StreamObserver<ProcessingResponse> out) {
    return new StreamObserver<>() {
      final StringBuilder body = new StringBuilder();

      @Override
      public void onNext(ProcessingRequest r) {
        switch (r.getRequestCase()) {
          case REQUEST_HEADERS -> {
            r.getRequestHeaders().getHeaders().getHeadersList().forEach(h -> headerNames.add(h.getKey()));
            protocolModes.add(r.getProtocolConfig().getRequestBodyMode() + "/"
                + r.getProtocolConfig().getResponseBodyMode());
          }
          case REQUEST_BODY -> {
            body.append(r.getRequestBody().getBody().toStringUtf8());
            if (r.getRequestBody().getEndOfStream()) {
              decide();
            }
          }
          case RESPONSE_HEADERS -> {
            var lb = r.getMetadataContext().getFilterMetadataMap().get("envoy.lb");
            served.add(lb == null ? "" : lb.getFieldsMap().get("x-gateway-destination-endpoint-served")
                .getStringValue());
            r.getResponseHeaders().getHeaders().getHeadersList().stream().filter(h -> h.getKey().equals(":status"))
                .forEach(h -> responseStatuses.add(h.getRawValue().toStringUtf8()));
            out.onNext(ProcessingResponse.newBuilder().setResponseHeaders(HeadersResponse.newBuilder()
                .setResponse(CommonResponse.newBuilder().setHeaderMutation(HeaderMutation.newBuilder()
                    .addRemoveHeaders("content-length"))))
                .build());
          }
          case RESPONSE_BODY -> out.onNext(ProcessingResponse.newBuilder().setResponseBody(BodyResponse.newBuilder()
              .setResponse(streamed(ByteString.copyFromUtf8(r.getResponseBody().getBody().toStringUtf8()
                  .toUpperCase(java.util.Locale.ROOT)), r.getResponseBody().getEndOfStream())))
              .build());
          default -> {}
        }
      }

      private void decide() {
        if (body.toString().contains("unknown")) {
          out.onNext(ProcessingResponse.newBuilder().setImmediateResponse(ImmediateResponse.newBuilder()
              .setStatus(HttpStatus.newBuilder().setCodeValue(404))
              .setHeaders(HeaderMutation.newBuilder().addSetHeaders(set("content-type", "application/json")))
              .setBody(ByteString.copyFromUtf8("{\"error\":\"no route\"}"))).build());
          return;
        }
        if (omitDestination) {
          out.onNext(ProcessingResponse.newBuilder().setRequestHeaders(HeadersResponse.getDefaultInstance()).build());
          out.onNext(ProcessingResponse.newBuilder().setRequestBody(BodyResponse.newBuilder()
              .setResponse(streamed(ByteString.copyFromUtf8(body.toString()), true))).build());
          return;
        }
        out.onNext(ProcessingResponse.newBuilder()
            .setRequestHeaders(HeadersResponse.newBuilder().setResponse(CommonResponse.newBuilder()
                .setClearRouteCache(true)
                .setHeaderMutation(HeaderMutation.newBuilder()
                    .addSetHeaders(set("x-gateway-destination-endpoint", destinations.getFirst()))
                    .addSetHeaders(set("x-picked-by", "scripted-epp"))
                    .addRemoveHeaders("x-secret"))))
            .setDynamicMetadata(Struct.newBuilder().putFields("envoy.lb", Value.newBuilder()
                .setStructValue(Struct.newBuilder().putFields("x-gateway-destination-endpoint",
                    Value.newBuilder().setStringValue(String.join(",", destinations)).build()))
                .build()))
            .build());
        String rewritten = body.toString().replace("\"m\"", "\"m-v2\"");
        out.onNext(ProcessingResponse.newBuilder().setRequestBody(BodyResponse.newBuilder()
            .setResponse(streamed(ByteString.copyFromUtf8(rewritten), true))).build());
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }

  private static CommonResponse streamed(ByteString chunk, boolean eos) {
    return CommonResponse.newBuilder().setBodyMutation(BodyMutation.newBuilder().setStreamedResponse(
        StreamedBodyResponse.newBuilder().setBody(chunk).setEndOfStream(eos))).build();
  }

  private static HeaderValueOption set(String k, String v) {
    return HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder().setKey(k)
        .setRawValue(ByteString.copyFromUtf8(v))).setAppendAction(
            HeaderValueOption.HeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD)
        .build();
  }
}
