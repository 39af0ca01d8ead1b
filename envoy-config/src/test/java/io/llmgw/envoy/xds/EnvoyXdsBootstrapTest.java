package io.llmgw.envoy.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.ApiConfigSource;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.llmgw.api.GatewayConfig;
import io.llmgw.envoy.EnvoyBootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** envoy-xds.yaml parses as Envoy would, and what xDS serves is what the static envoy.yaml says, field for field. */
class EnvoyXdsBootstrapTest {
  @Test
  void theXdsBootstrapPointsAdsAtAnHttp2ClusterOnTheDefaultXdsPort() throws Exception {
    Bootstrap b = EnvoyBootstrap.parse(Files.readString(Path.of("envoy-xds.yaml")));
    var ads = b.getDynamicResources().getAdsConfig();
    assertThat(ads.getApiType()).isEqualTo(ApiConfigSource.ApiType.GRPC);
    String cluster = ads.getGrpcServices(0).getEnvoyGrpc().getClusterName();
    assertThat(b.getDynamicResources().getLdsConfig().hasAds()).isTrue();
    assertThat(b.getDynamicResources().getCdsConfig().hasAds()).isTrue();
    Cluster xds = b.getStaticResources().getClustersList().stream().filter(c -> c.getName().equals(cluster))
        .findFirst().orElseThrow();
    assertThat(xds.getTypedExtensionProtocolOptionsMap())
        .containsKey("envoy.extensions.upstreams.http.v3.HttpProtocolOptions");
    assertThat(xds.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress().getSocketAddress()
        .getPortValue()).isEqualTo(18000);
    assertThat(b.getNode().getId()).isNotBlank();
  }

  @Test
  void servedResourcesMatchTheStaticBootstrapSoBothPathsBehaveAlike() throws Exception {
    Bootstrap fixed = EnvoyBootstrap.parse(Files.readString(Path.of("envoy.yaml")));
    XdsResources served = XdsResources.of(GatewayConfig.empty(),
        new XdsSettings("0.0.0.0", 8080, "127.0.0.1", 9002));
    for (String name : new String[] {"epp", "model_servers"}) {
      Cluster expected = fixed.getStaticResources().getClustersList().stream().filter(c -> c.getName().equals(name))
          .findFirst().orElseThrow();
      Cluster actual = served.clusters().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
      if (name.equals("epp")) {
        // the static file lists two local replicas; xDS names one DNS name, a headless Service's, one host per replica
        assertThat(expected.getLoadAssignment().getEndpoints(0).getLbEndpointsCount()).isEqualTo(2);
        assertThat(actual.getLoadAssignment().getEndpoints(0).getLbEndpointsCount()).isEqualTo(1);
        expected = expected.toBuilder().clearLoadAssignment().build();
        actual = actual.toBuilder().clearLoadAssignment().build();
      }
      assertThat(actual).as(name).isEqualTo(expected);
    }
    HttpConnectionManager fixedHcm = fixed.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0)
        .getTypedConfig().unpack(HttpConnectionManager.class);
    HttpConnectionManager servedHcm = served.listeners().getFirst().getFilterChains(0).getFilters(0).getTypedConfig()
        .unpack(HttpConnectionManager.class);
    assertThat(servedHcm.getHttpFilters(1).getTypedConfig().unpack(ExternalProcessor.class))
        .isEqualTo(fixedHcm.getHttpFilters(1).getTypedConfig().unpack(ExternalProcessor.class));
    assertThat(served.routes().getFirst().getVirtualHosts(0).getRoutesList().getLast().getRoute())
        .isEqualTo(fixedHcm.getRouteConfig().getVirtualHosts(0).getRoutesList().getLast().getRoute());
    assertThat(served.listeners().getFirst().getAddress())
        .isEqualTo(fixed.getStaticResources().getListeners(0).getAddress());
  }

  @Test
  void withABatchServiceTheServedRoutesSendFilesAndBatchesThereAsTheStaticBootstrapDoes() throws Exception {
    Bootstrap fixed = EnvoyBootstrap.parse(Files.readString(Path.of("envoy.yaml")));
    HttpConnectionManager fixedHcm = fixed.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0)
        .getTypedConfig().unpack(HttpConnectionManager.class);
    XdsResources served = XdsResources.of(GatewayConfig.empty(),
        new XdsSettings("0.0.0.0", 8080, "127.0.0.1", 9002).withBatchService("llmgw-batch:8090"));
    var routes = served.routes().getFirst().getVirtualHosts(0).getRoutesList();
    assertThat(routes.subList(0, 2)).isEqualTo(fixedHcm.getRouteConfig().getVirtualHosts(0).getRoutesList()
        .subList(0, 2));
    Cluster batch = served.clusters().stream().filter(c -> c.getName().equals("batch_service")).findFirst()
        .orElseThrow();
    assertThat(batch.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
        .getSocketAddress().getAddress()).isEqualTo("llmgw-batch");
    assertThat(XdsResources.of(GatewayConfig.empty(), new XdsSettings("0.0.0.0", 8080, "127.0.0.1", 9002))
        .clusters()).extracting(Cluster::getName).doesNotContain("batch_service");
  }

  /**
   * Issue 15: the EPP over mutual TLS. envoy-mtls.yaml is envoy.yaml with a TLS transport socket on the epp cluster,
   * and xDS serves the same socket when the EPP serves TLS.
   */
  @Test
  void overMutualTlsTheStaticAndServedEppClustersCarryTheSameTransportSocket() throws Exception {
    Bootstrap plain = EnvoyBootstrap.parse(Files.readString(Path.of("envoy.yaml")));
    Bootstrap mtls = EnvoyBootstrap.parse(Files.readString(Path.of("envoy-mtls.yaml")));
    Cluster tlsEpp = mtls.getStaticResources().getClustersList().stream().filter(c -> c.getName().equals("epp"))
        .findFirst().orElseThrow();
    Bootstrap withoutTls = mtls.toBuilder().clearStaticResources().setStaticResources(mtls.getStaticResources()
        .toBuilder().clearClusters().addAllClusters(mtls.getStaticResources().getClustersList().stream()
            .map(c -> c.getName().equals("epp") ? c.toBuilder().clearTransportSocket().build() : c).toList()))
        .build();
    assertThat(withoutTls).isEqualTo(plain);
    var served = XdsResources.of(GatewayConfig.empty(), new XdsSettings("0.0.0.0", 8080, "127.0.0.1", 9002)
        .withEppTls(new XdsSettings.EppTls("/etc/llmgw/epp-tls/ca.crt", "/etc/llmgw/envoy-tls/tls.crt",
            "/etc/llmgw/envoy-tls/tls.key")))
        .clusters().stream().filter(c -> c.getName().equals("epp"))
        .findFirst().orElseThrow();
    assertThat(served.getTransportSocket()).isEqualTo(tlsEpp.getTransportSocket());
    var tls = served.getTransportSocket().getTypedConfig().unpack(
        io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.class);
    assertThat(tls.getCommonTlsContext().getTlsCertificatesCount()).isEqualTo(1);
    var selfSigned = XdsResources.of(GatewayConfig.empty(), new XdsSettings("0.0.0.0", 8080, "epp", 9002)
        .withEppTls(new XdsSettings.EppTls(null, null, null))).clusters().stream()
        .filter(c -> c.getName().equals("epp")).findFirst().orElseThrow().getTransportSocket().getTypedConfig()
        .unpack(io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.class);
    assertThat(selfSigned.getCommonTlsContext().hasValidationContext()).as("a self-signed EPP: any certificate")
        .isFalse();
    assertThat(selfSigned.getSni()).isEqualTo("epp");
  }
}
