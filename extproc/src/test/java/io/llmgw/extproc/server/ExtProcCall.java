package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.config.core.v3.Metadata;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProtocolConfiguration;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.llmgw.api.EppProtocol;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One ext_proc stream driven the way Envoy drives it: real frames over a real gRPC channel. */
final class ExtProcCall implements ClientResponseObserver<ProcessingRequest, ProcessingResponse> {
  private final BlockingQueue<ProcessingResponse> responses = new LinkedBlockingQueue<>();
  private volatile ClientCallStreamObserver<ProcessingRequest> requests;

  static ExtProcCall open(ExternalProcessorGrpc.ExternalProcessorStub stub) {
    ExtProcCall call = new ExtProcCall();
    stub.process(call);
    return call;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ProcessingRequest> requestStream) {
    this.requests = requestStream;
  }

  @Override
  public void onNext(ProcessingResponse value) {
    responses.add(value);
  }

  @Override
  public void onError(Throwable t) {}

  @Override
  public void onCompleted() {}

  void send(ProcessingRequest r) {
    requests.onNext(r);
  }

  void end() {
    requests.onCompleted();
  }

  void cancel() {
    requests.cancel("client went away", null);
  }

  /** Whether the EPP has answered anything that was not taken yet. */
  boolean answered() {
    return !responses.isEmpty();
  }

  /** The next response; the bound is a failure deadline, not a synchronisation sleep. */
  ProcessingResponse next() throws InterruptedException {
    ProcessingResponse r = responses.poll(10, TimeUnit.SECONDS);
    assertThat(r).as("a response from the EPP within 10 s").isNotNull();
    return r;
  }

  // ---- frames, as Envoy sends them ----

  static ProcessingRequest requestHeaders(Map<String, String> headers, boolean endOfStream, BodySendMode mode,
      Metadata metadata) {
    HeaderMap.Builder map = HeaderMap.newBuilder();
    headers.forEach((k, v) -> map.addHeaders(
        HeaderValue.newBuilder().setKey(k).setRawValue(ByteString.copyFrom(v, StandardCharsets.UTF_8))));
    ProcessingRequest.Builder b = ProcessingRequest.newBuilder()
        .setRequestHeaders(HttpHeaders.newBuilder().setHeaders(map).setEndOfStream(endOfStream))
        .setProtocolConfig(ProtocolConfiguration.newBuilder().setRequestBodyMode(mode).setResponseBodyMode(mode));
    if (metadata != null) {
      b.setMetadataContext(metadata);
    }
    return b.build();
  }

  static ProcessingRequest post(String path) {
    return requestHeaders(Map.of(":method", "POST", ":path", path, "content-type", "application/json"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, null);
  }

  static ProcessingRequest requestBody(ByteString chunk, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setRequestBody(HttpBody.newBuilder().setBody(chunk).setEndOfStream(endOfStream)).build();
  }

  static ProcessingRequest requestBody(String chunk, boolean endOfStream) {
    return requestBody(ByteString.copyFromUtf8(chunk), endOfStream);
  }

  static ProcessingRequest responseHeaders(int status, String contentType, String served, boolean endOfStream) {
    HeaderMap.Builder map = HeaderMap.newBuilder()
        .addHeaders(HeaderValue.newBuilder().setKey(":status").setRawValue(ByteString.copyFromUtf8("" + status)))
        .addHeaders(HeaderValue.newBuilder().setKey("content-type").setRawValue(ByteString.copyFromUtf8(contentType)))
        .addHeaders(HeaderValue.newBuilder().setKey("content-length").setRawValue(ByteString.copyFromUtf8("100")));
    ProcessingRequest.Builder b = ProcessingRequest.newBuilder()
        .setResponseHeaders(HttpHeaders.newBuilder().setHeaders(map).setEndOfStream(endOfStream));
    if (served != null) {
      b.setMetadataContext(lbMetadata(EppProtocol.LB_NAMESPACE, EppProtocol.DESTINATION_SERVED,
          Value.newBuilder().setStringValue(served).build()));
    }
    return b.build();
  }

  static ProcessingRequest responseBody(String chunk, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setResponseBody(HttpBody.newBuilder().setBody(ByteString.copyFromUtf8(chunk)).setEndOfStream(endOfStream))
        .build();
  }

  static Metadata lbMetadata(String namespace, String key, Value value) {
    return Metadata.newBuilder()
        .putFilterMetadata(namespace, Struct.newBuilder().putFields(key, value).build()).build();
  }

  // ---- reading answers ----

  static String setHeader(ProcessingResponse r, String name) {
    var common = r.hasRequestHeaders() ? r.getRequestHeaders().getResponse() : r.getRequestBody().getResponse();
    for (HeaderValueOption o : common.getHeaderMutation().getSetHeadersList()) {
      if (o.getHeader().getKey().equals(name)) {
        assertThat(o.getHeader().getValue()).as("values travel in raw_value only").isEmpty();
        assertThat(o.getAppendAction()).isEqualTo(HeaderValueOption.HeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD);
        return o.getHeader().getRawValue().toStringUtf8();
      }
    }
    return null;
  }

  static String metadataDestination(ProcessingResponse r) {
    return r.getDynamicMetadata().getFieldsOrThrow(EppProtocol.LB_NAMESPACE).getStructValue()
        .getFieldsOrThrow(EppProtocol.DESTINATION).getStringValue();
  }
}
