package io.llmgw.bench;

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
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.StreamedBodyResponse;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The protocol's own cost, as a baseline for load runs: an ext_proc server that routes every request to one fixed
 * address without reading the body, echoes the body back, and passes the response through. Whatever the real EPP
 * costs beyond this is its own work.
 */
public final class NullExtProc implements AutoCloseable {
  private final Server server;

  public NullExtProc(String destination) throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .directExecutor().addService(new Service(destination)).build().start();
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  private static final class Service extends ExternalProcessorGrpc.ExternalProcessorImplBase {
    private final ProcessingResponse routed;

    Service(String destination) {
      HeaderValueOption header = HeaderValueOption.newBuilder().setHeader(HeaderValue.newBuilder()
          .setKey("x-gateway-destination-endpoint").setRawValue(ByteString.copyFromUtf8(destination))).build();
      Struct metadata = Struct.newBuilder().putFields("envoy.lb", Value.newBuilder().setStructValue(Struct.newBuilder()
          .putFields("x-gateway-destination-endpoint", Value.newBuilder().setStringValue(destination).build())).build())
          .build();
      routed = ProcessingResponse.newBuilder().setRequestHeaders(HeadersResponse.newBuilder().setResponse(
          CommonResponse.newBuilder().setClearRouteCache(true).setHeaderMutation(HeaderMutation.newBuilder()
              .addSetHeaders(header))))
          .setDynamicMetadata(metadata).build();
    }

    @Override
    public StreamObserver<ProcessingRequest> process(StreamObserver<ProcessingResponse> out) {
      return new StreamObserver<>() {
        @Override
        public synchronized void onNext(ProcessingRequest req) {
          switch (req.getRequestCase()) {
            case REQUEST_BODY -> {
              if (req.getRequestBody().getEndOfStream()) {
                out.onNext(routed);
              }
              out.onNext(ProcessingResponse.newBuilder().setRequestBody(echo(req)).build());
            }
            case RESPONSE_HEADERS -> out.onNext(ProcessingResponse.newBuilder()
                .setResponseHeaders(HeadersResponse.getDefaultInstance()).build());
            case RESPONSE_BODY -> out.onNext(ProcessingResponse.newBuilder().setResponseBody(echo(req)).build());
            default -> {}
          }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public synchronized void onCompleted() {
          out.onCompleted();
        }
      };
    }

    private static BodyResponse echo(ProcessingRequest req) {
      var body = req.hasRequestBody() ? req.getRequestBody() : req.getResponseBody();
      return BodyResponse.newBuilder().setResponse(CommonResponse.newBuilder().setBodyMutation(BodyMutation
          .newBuilder().setStreamedResponse(StreamedBodyResponse.newBuilder().setBody(body.getBody())
              .setEndOfStream(body.getEndOfStream()))))
          .build();
    }
  }
}
