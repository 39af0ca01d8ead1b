package io.llmgw.extproc.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 4: in cluster mode the peers are the EPP Service's ready endpoints, followed as replicas come, go and
 * turn unready (the fabric8 mock API server).
 */
@EnableKubernetesMockClient(crud = true)
class PeerDiscoveryTest {
  static KubernetesClient client;

  static EndpointSlice slice(String name, String service, String addressType, Integer healthPort, String... ipReady) {
    EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name)
        .addToLabels(PeerDiscovery.SERVICE_LABEL, service).endMetadata().withAddressType(addressType);
    if (healthPort != null) {
      b.addNewPort().withName("grpc-ext-proc").withPort(9002).endPort()
          .addNewPort().withName("grpc-health").withPort(healthPort).endPort();
    }
    for (String e : ipReady) {
      String[] ipAndReady = e.split("=");
      b.addNewEndpoint().withAddresses(ipAndReady[0]).withNewConditions()
          .withReady(Boolean.parseBoolean(ipAndReady[1])).endConditions().endEndpoint();
    }
    return b.build();
  }

  @Test
  void theServicesReadyEndpointsAreThePeersAsReplicasComeTurnUnreadyAndGo() {
    List<List<String>> told = new CopyOnWriteArrayList<>();
    var slices = client.discovery().v1().endpointSlices().inNamespace("ns");
    try (PeerDiscovery d = new PeerDiscovery(client, "ns", "llmgw-epp", 9003, told::add).start(Duration.ZERO)) {
      slices.resource(slice("llmgw-epp-a", "llmgw-epp", "IPv4", 9003, "10.0.0.1=true", "10.0.0.2=true",
          "10.0.0.3=false")).create();
      slices.resource(slice("other-a", "other", "IPv4", 9003, "10.9.9.9=true")).create();
      await().atMost(Duration.ofSeconds(10)).until(() -> !told.isEmpty()
          && told.getLast().equals(List.of("10.0.0.1:9003", "10.0.0.2:9003")));

      slices.resource(slice("llmgw-epp-a", "llmgw-epp", "IPv4", 9003, "10.0.0.1=true", "10.0.0.2=false",
          "10.0.0.4=true")).update();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> told.getLast().equals(List.of("10.0.0.1:9003", "10.0.0.4:9003")));

      slices.withName("llmgw-epp-a").delete();
      await().atMost(Duration.ofSeconds(10)).until(() -> told.getLast().isEmpty());
      assertThat(told).noneMatch(list -> list.contains("10.9.9.9:9003"));
    }
  }

  @Test
  void theHealthPortIsTheSlicesOrThisReplicasOwnAndOddSlicesAreSkipped() {
    assertThat(PeerDiscovery.addresses(List.of(slice("a", "s", "IPv4", 19003, "10.0.0.1=true")), 9003))
        .containsExactly("10.0.0.1:19003");
    assertThat(PeerDiscovery.addresses(List.of(slice("b", "s", "IPv4", null, "10.0.0.1=true")), 9003))
        .as("a slice that names no port").containsExactly("10.0.0.1:9003");
    assertThat(PeerDiscovery.addresses(List.of(slice("c", "s", "IPv6", 9003, "fd00::1=true")), 9003))
        .containsExactly("[fd00::1]:9003");
    assertThat(PeerDiscovery.addresses(List.of(slice("d", "s", "FQDN", 9003, "epp.invalid=true")), 9003)).isEmpty();
    assertThat(PeerDiscovery.addresses(List.of(new EndpointSliceBuilder().withNewMetadata().withName("e")
        .endMetadata().build()), 9003)).as("a slice with nothing in it").isEmpty();
  }
}
