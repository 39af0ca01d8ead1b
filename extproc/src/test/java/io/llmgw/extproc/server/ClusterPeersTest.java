package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.control.SourceSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 4 in a cluster: two replicas started with {@code --peers-service} find each other among their
 * Service's endpoints (the fabric8 mock API server), each recognises its own address there and does not watch itself.
 */
class ClusterPeersTest {
  static KubernetesMockServer server;
  static KubernetesClient client;

  @BeforeAll
  static void startApiServer() throws Exception {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init(InetAddress.getByName("127.0.0.1"), 0);
    client = server.createClient();
  }

  /**
   * The client first, so that its watches are closed from its side: the mock server's own close waits at most 10 s for
   * its connections and failed once in CI with a watch still open (the extension closes the server first).
   */
  @AfterAll
  static void stopApiServer() {
    client.close();
    server.destroy();
  }

  @Test
  void replicasFindEachOtherInTheirServicesEndpointsAndNotThemselves() throws Exception {
    int healthA = LoopbackPorts.free();
    int healthB = LoopbackPorts.free();
    // one slice per replica: the same address, each its own health port
    for (int port : new int[] {healthA, healthB}) {
      client.discovery().v1().endpointSlices().inNamespace("peers").resource(slice("llmgw-epp-" + port, port))
          .create();
    }
    try (Epp a = start(healthA); Epp b = start(healthB)) {
      await().atMost(Duration.ofSeconds(15)).until(() -> a.datastore().peers().freshPeers() == 1
          && b.datastore().peers().freshPeers() == 1);
      b.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.datastore().peers().freshPeers() == 0);
      assertThat(a.datastore().peers().freshPeers()).isZero();
    }
  }

  /**
   * Issue 51, item 2 in a cluster: a replica that starts lists its Service's endpoints before it counts whom it must
   * hear from, so a peer there that has not greeted it keeps it unready (before, the list came after the count, and a
   * replica was ready at once with nobody to wait for). The peer here takes the watch and never speaks.
   */
  @Test
  void aReplicaThatStartsInAClusterWaitsForThePeersItsServiceListsBeforeItIsReady() throws Exception {
    Server silent = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("llmgw.PeerLoad").addMethod(WATCH,
            ServerCalls.asyncServerStreamingCall((request, response) -> {})).build())
        .build().start();
    var slices = client.discovery().v1().endpointSlices().inNamespace("warm");
    slices.resource(slice("llmgw-epp-silent", silent.getPort())).create();
    ManagedChannel health = null;
    try (Epp b = start("warm", LoopbackPorts.free(), Duration.ofMinutes(1))) {
      health = NettyChannelBuilder.forAddress("127.0.0.1", b.healthPort()).usePlaintext().build();
      await().atMost(Duration.ofSeconds(10)).until(() -> b.datastore().loaded());
      synchronized (b.datastore()) { // its routes loaded and readiness told of them, which apply does under this lock
        assertThat(b.datastore().loaded()).isTrue();
      }
      assertThat(readiness(health)).as("its peer has not greeted it").isEqualTo(ServingStatus.NOT_SERVING);
      assertThat(FleetRestartTest.metric(b, "llmgw_peer_warm")).isEqualTo("llmgw_peer_warm 0.0");
      slices.withName("llmgw-epp-silent").delete(); // no longer a peer: nobody left to wait for
      ManagedChannel ch = health;
      await().atMost(Duration.ofSeconds(10)).until(() -> readiness(ch) == ServingStatus.SERVING);
    } finally {
      if (health != null) {
        health.shutdownNow();
      }
      silent.shutdownNow();
    }
  }

  private static final MethodDescriptor<byte[], byte[]> WATCH = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING).setFullMethodName("llmgw.PeerLoad/Watch")
      .setRequestMarshaller(new Raw()).setResponseMarshaller(new Raw()).build();

  private static final class Raw implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream in) {
      try {
        return in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static ServingStatus readiness(ManagedChannel ch) {
    return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("readiness").build()).getStatus();
  }

  private static EndpointSlice slice(String name, int healthPort) {
    return new EndpointSliceBuilder().withNewMetadata().withName(name)
        .addToLabels("kubernetes.io/service-name", "llmgw-epp").endMetadata().withAddressType("IPv4").addNewPort()
        .withName("grpc-health").withPort(healthPort).endPort().addNewEndpoint().withAddresses("127.0.0.1")
        .withNewConditions().withReady(true).endConditions().endEndpoint().build();
  }

  private static Epp start(int healthPort) throws Exception {
    return start("peers", healthPort, Duration.ofSeconds(5));
  }

  private static Epp start(String namespace, int healthPort, Duration warmTimeout) throws Exception {
    EppSettings s = EppSettings.defaults(SourceSettings.Cluster.defaults(namespace, "replica-" + healthPort)
        .withLeaderElection(false)).onLoopbackEphemeralPorts();
    return Epp.start(s
        .withListen(s.listen().on("127.0.0.1", 0, healthPort, 0).withPeerService("llmgw-epp").withPeerKey(TestPeers.KEY)
            .withPeerWarmTimeout(warmTimeout).withStopping(Duration.ZERO, Duration.ofMillis(200))),
        Clock.systemUTC(), client);
  }
}
