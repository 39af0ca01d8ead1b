package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.control.SourceSettings;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
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
      client.discovery().v1().endpointSlices().inNamespace("peers").resource(new EndpointSliceBuilder()
          .withNewMetadata().withName("llmgw-epp-" + port).addToLabels("kubernetes.io/service-name", "llmgw-epp")
          .endMetadata().withAddressType("IPv4").addNewPort().withName("grpc-health").withPort(port).endPort()
          .addNewEndpoint().withAddresses("127.0.0.1").withNewConditions().withReady(true).endConditions()
          .endEndpoint().build()).create();
    }
    try (Epp a = start(healthA); Epp b = start(healthB)) {
      await().atMost(Duration.ofSeconds(15)).until(() -> a.datastore().peers().freshPeers() == 1
          && b.datastore().peers().freshPeers() == 1);
      b.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.datastore().peers().freshPeers() == 0);
      assertThat(a.datastore().peers().freshPeers()).isZero();
    }
  }

  private static Epp start(int healthPort) throws Exception {
    EppSettings s = EppSettings.defaults(SourceSettings.Cluster.defaults("peers", "replica-" + healthPort)
        .withLeaderElection(false)).onLoopbackEphemeralPorts();
    return Epp.start(s
        .withListen(s.listen().on("127.0.0.1", 0, healthPort, 0).withPeerService("llmgw-epp").withPeerKey(TestPeers.KEY)
            .withStopping(Duration.ZERO, Duration.ofMillis(200))),
        Clock.systemUTC(), client);
  }
}
