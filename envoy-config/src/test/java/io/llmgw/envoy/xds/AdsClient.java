package io.llmgw.envoy.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One ADS stream as Envoy opens it: subscribe per type, ACK each response, read the pushed updates. */
final class AdsClient implements AutoCloseable {
  static final String CLUSTERS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
  static final String LISTENERS = "type.googleapis.com/envoy.config.listener.v3.Listener";
  static final String ROUTES = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";

  private final ManagedChannel channel;
  private final StreamObserver<DiscoveryRequest> requests;
  private final BlockingQueue<DiscoveryResponse> responses = new LinkedBlockingQueue<>();
  private final List<DiscoveryResponse> unread = new ArrayList<>();
  private final Node node = Node.newBuilder().setId("envoy-test").setCluster("llm-gateway").build();

  AdsClient(int port) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    requests = AggregatedDiscoveryServiceGrpc.newStub(channel).streamAggregatedResources(new StreamObserver<>() {
      @Override
      public void onNext(DiscoveryResponse r) {
        responses.add(r);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    });
  }

  void subscribe(String typeUrl, String... names) {
    requests.onNext(DiscoveryRequest.newBuilder().setNode(node).setTypeUrl(typeUrl).addAllResourceNames(List.of(names))
        .build());
  }

  /** The next response of this type (within 10 s), ACKed as Envoy would. */
  DiscoveryResponse next(String typeUrl, String... names) throws InterruptedException {
    DiscoveryResponse found = null;
    for (DiscoveryResponse r : unread) {
      if (r.getTypeUrl().equals(typeUrl)) {
        found = r;
        break;
      }
    }
    if (found != null) {
      unread.remove(found);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (found == null) {
      DiscoveryResponse r = responses.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      assertThat(r).as("an xDS response of type " + typeUrl + " within 10 s").isNotNull();
      if (r.getTypeUrl().equals(typeUrl)) {
        found = r;
      } else {
        unread.add(r);
      }
    }
    requests
        .onNext(DiscoveryRequest.newBuilder().setNode(node).setTypeUrl(typeUrl).setVersionInfo(found.getVersionInfo())
            .setResponseNonce(found.getNonce()).addAllResourceNames(List.of(names)).build());
    return found;
  }

  static <T extends Message> List<T> unpack(DiscoveryResponse r, Class<T> type) throws InvalidProtocolBufferException {
    List<T> out = new ArrayList<>();
    for (Any any : r.getResourcesList()) {
      out.add(any.unpack(type));
    }
    return out;
  }

  @Override
  public void close() {
    requests.onCompleted();
    channel.shutdownNow();
  }
}
