package io.llmgw.envoy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DynamicMessage;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.type.metadata.v3.MetadataKey;
import io.llmgw.api.EppProtocol;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EnvoyBootstrapTest {
  static String shipped() throws IOException {
    return Files.readString(Path.of("envoy.yaml"));
  }

  @Test
  void theShippedBootstrapParsesWithEveryTypedConfigResolved() throws Exception {
    Bootstrap b = EnvoyBootstrap.parse(shipped());

    var listener = b.getStaticResources().getListeners(0);
    assertThat(listener.getAddress().getSocketAddress().getPortValue()).isEqualTo(8080);
    HttpConnectionManager hcm = listener.getFilterChains(0).getFilters(0).getTypedConfig()
        .unpack(HttpConnectionManager.class);
    assertThat(hcm.getHttpFiltersList()).extracting(HttpFilter::getName)
        .containsExactly("envoy.filters.http.header_mutation", "envoy.filters.http.ext_proc",
            "envoy.filters.http.router");
    assertThat(TenantHeader.removedFirst(hcm)).as("issue 31: a client's tenant header never reaches the EPP").isTrue();
    ExternalProcessor ext = hcm.getHttpFilters(1).getTypedConfig().unpack(ExternalProcessor.class);
    ProcessingMode mode = ext.getProcessingMode();
    assertThat(mode.getRequestBodyMode()).isEqualTo(ProcessingMode.BodySendMode.FULL_DUPLEX_STREAMED);
    assertThat(mode.getResponseBodyMode()).isEqualTo(ProcessingMode.BodySendMode.FULL_DUPLEX_STREAMED);
    assertThat(mode.getRequestTrailerMode()).isEqualTo(ProcessingMode.HeaderSendMode.SEND);
    assertThat(ext.getGrpcService().getEnvoyGrpc().getClusterName()).isEqualTo("epp");
    assertThat(ext.getMessageTimeout().getSeconds()).as("longer than the EPP's 30 s wait for an adapter load")
        .isGreaterThan(30);
    assertThat(ext.getMetadataOptions().getReceivingNamespaces().getUntypedList()).contains("envoy.lb");

    Cluster pods = b.getStaticResources().getClustersList().stream()
        .filter(c -> c.getName().equals("model_servers")).findFirst().orElseThrow();
    assertThat(pods.getType()).isEqualTo(Cluster.DiscoveryType.ORIGINAL_DST);
    assertThat(pods.getLbPolicy()).isEqualTo(Cluster.LbPolicy.CLUSTER_PROVIDED);
    assertThat(pods.getOriginalDstLbConfig().getUseHttpHeader()).isTrue();
    assertThat(pods.getOriginalDstLbConfig().getHttpHeaderName()).isEqualTo("x-gateway-destination-endpoint");
    Cluster epp = b.getStaticResources().getClustersList().stream()
        .filter(c -> c.getName().equals("epp")).findFirst().orElseThrow();
    assertThat(epp.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
        .getSocketAddress().getPortValue()).isEqualTo(9002);
    assertThat(epp.getTypedExtensionProtocolOptionsMap())
        .containsKey("envoy.extensions.upstreams.http.v3.HttpProtocolOptions");
  }

  /**
   * Issue 13, item 9: with {@code --destination-fallbacks} the header and the metadata carry the ordered list, and this
   * Envoy set-up walks it (override_host reads the metadata); everything but the pods' cluster is envoy.yaml's.
   */
  @Test
  void item9TheFallbacksBootstrapWalksTheMetadataListAndOtherwiseEqualsTheShippedOne() throws Exception {
    Bootstrap listed = EnvoyBootstrap.parse(Files.readString(Path.of("envoy-fallbacks.yaml")));
    Bootstrap single = EnvoyBootstrap.parse(shipped());
    assertThat(withoutTheFailOpenRoute(listed.getStaticResources().getListeners(0)))
        .isEqualTo(single.getStaticResources().getListeners(0));
    assertThat(cluster(listed, "epp")).isEqualTo(cluster(single, "epp"));

    Cluster pods = cluster(listed, "model_servers");
    var policy = pods.getLoadBalancingPolicy().getPolicies(0).getTypedExtensionConfig();
    assertThat(policy.getName()).isEqualTo("envoy.load_balancing_policies.override_host");
    var descriptor = EnvoyBootstrap.TYPES.find(OverrideHostType.FULL_NAME);
    DynamicMessage config = DynamicMessage.parseFrom(descriptor, policy.getTypedConfig().getValue());
    DynamicMessage source = (DynamicMessage) config
        .getRepeatedField(descriptor.findFieldByName("override_host_sources"), 0);
    MetadataKey key = MetadataKey.parseFrom(((DynamicMessage) source.getField(
        source.getDescriptorForType().findFieldByName("metadata"))).toByteString());
    assertThat(key.getKey()).isEqualTo(EppProtocol.LB_NAMESPACE);
    assertThat(key.getPath(0).getKey()).isEqualTo(EppProtocol.DESTINATION);
    assertThat(pods.getLoadAssignment().getEndpoints(0).getLbEndpointsCount()).as("the quickstart's four pods")
        .isEqualTo(4);

    String yaml = Files.readString(Path.of("envoy-fallbacks.yaml"));
    assertThatThrownBy(() -> EnvoyBootstrap.parse(yaml.replace("override_host_sources", "override_hosts")))
        .hasMessageContaining("override_hosts");
  }

  /** The listener as envoy.yaml has it: without the fail-open filter and the one route that uses it. */
  private static Listener withoutTheFailOpenRoute(Listener l) throws Exception {
    HttpConnectionManager hcm = l.getFilterChains(0).getFilters(0).getTypedConfig().unpack(HttpConnectionManager.class);
    HttpConnectionManager.Builder b = hcm.toBuilder();
    b.clearHttpFilters().addAllHttpFilters(hcm.getHttpFiltersList().stream()
        .filter(f -> !f.getName().equals("ext_proc_fail_open")).toList());
    var routes = hcm.getRouteConfig().getVirtualHosts(0).getRoutesList().stream()
        .filter(r -> !r.getTypedPerFilterConfigMap().containsKey("ext_proc_fail_open")).toList();
    b.getRouteConfigBuilder().getVirtualHostsBuilder(0).clearRoutes().addAllRoutes(routes);
    Listener.Builder out = l.toBuilder();
    out.getFilterChainsBuilder(0).getFiltersBuilder(0).setTypedConfig(com.google.protobuf.Any.pack(b.build()));
    return out.build();
  }

  /**
   * Issue 15: failing open or closed is explicit per route. Fail-closed everywhere in envoy.yaml; in
   * envoy-fallbacks.yaml /v1/embeddings swaps the fail-closed filter for a fail-open twin that is off elsewhere.
   */
  @Test
  void failingOpenOrClosedIsChosenPerRoute() throws Exception {
    HttpConnectionManager shippedHcm = EnvoyBootstrap.parse(shipped()).getStaticResources().getListeners(0)
        .getFilterChains(0).getFilters(0).getTypedConfig().unpack(HttpConnectionManager.class);
    assertThat(shippedHcm.getHttpFilters(1).getTypedConfig().unpack(ExternalProcessor.class).getFailureModeAllow())
        .isFalse();
    HttpConnectionManager hcm = EnvoyBootstrap.parse(Files.readString(Path.of("envoy-fallbacks.yaml")))
        .getStaticResources().getListeners(0).getFilterChains(0).getFilters(0).getTypedConfig()
        .unpack(HttpConnectionManager.class);
    assertThat(TenantHeader.removedFirst(hcm)).isTrue();
    var closed = hcm.getHttpFilters(1);
    var open = hcm.getHttpFilters(2);
    assertThat(open.getName()).isEqualTo("ext_proc_fail_open");
    assertThat(open.getDisabled()).as("off unless a route enables it").isTrue();
    ExternalProcessor openConfig = open.getTypedConfig().unpack(ExternalProcessor.class);
    ExternalProcessor closedConfig = closed.getTypedConfig().unpack(ExternalProcessor.class);
    assertThat(openConfig.getFailureModeAllow()).isTrue();
    assertThat(openConfig.toBuilder().setFailureModeAllow(false).build()).as("twins but for the failure mode")
        .isEqualTo(closedConfig);
    var embeddings = hcm.getRouteConfig().getVirtualHosts(0).getRoutesList().stream()
        .filter(r -> r.getMatch().getPathSeparatedPrefix().equals("/v1/embeddings")).findFirst().orElseThrow();
    assertThat(embeddings.getTypedPerFilterConfigOrThrow("envoy.filters.http.ext_proc")
        .unpack(ExtProcPerRoute.class).getDisabled()).isTrue();
    assertThat(embeddings.getTypedPerFilterConfigOrThrow("ext_proc_fail_open")
        .unpack(io.envoyproxy.envoy.config.route.v3.FilterConfig.class).getDisabled()).isFalse();
    assertThat(closedConfig.getGrpcService().getRetryPolicy().getNumRetries().getValue())
        .as("a stream to a replica that is gone is retried on another").isEqualTo(2);
  }

  private static Cluster cluster(Bootstrap b, String name) {
    return b.getStaticResources().getClustersList().stream().filter(c -> c.getName().equals(name)).findFirst()
        .orElseThrow();
  }

  /** Issue 14: OpenAI's Files and Batches API reach the batch service, with ext_proc off on their routes only. */
  @Test
  void filesAndBatchesGoToTheBatchServiceWithoutTheEpp() throws Exception {
    Bootstrap b = EnvoyBootstrap.parse(shipped());
    HttpConnectionManager hcm = b.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0)
        .getTypedConfig().unpack(HttpConnectionManager.class);
    var routes = hcm.getRouteConfig().getVirtualHosts(0).getRoutesList();
    assertThat(routes).extracting(r -> r.getMatch().getPathSeparatedPrefix()).startsWith("/v1/files", "/v1/batches");
    for (var r : routes.subList(0, 2)) {
      assertThat(r.getRoute().getCluster()).isEqualTo("batch_service");
      assertThat(r.getTypedPerFilterConfigOrThrow("envoy.filters.http.ext_proc")
          .unpack(ExtProcPerRoute.class).getDisabled())
          .isTrue();
    }
    assertThat(routes.getLast().getMatch().getPrefix()).isEqualTo("/");
    assertThat(routes.getLast().getTypedPerFilterConfigMap()).isEmpty();
    assertThat(cluster(b, "batch_service").getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint()
        .getAddress().getSocketAddress().getPortValue()).isEqualTo(8090);
  }

  @Test
  void aTypoInAFieldOrEnumFailsTheParse() throws Exception {
    String yaml = shipped();
    assertThatThrownBy(() -> EnvoyBootstrap.parse(yaml.replace("use_http_header", "use_http_headr")))
        .hasMessageContaining("use_http_headr");
    assertThatThrownBy(() -> EnvoyBootstrap.parse(yaml.replace("request_body_mode: FULL_DUPLEX_STREAMED",
        "request_body_mode: FULL_DUPLEX"))).isInstanceOf(IOException.class);
    assertThatThrownBy(
        () -> EnvoyBootstrap.parse(yaml.replace("ext_proc.v3.ExternalProcessor", "ext_proc.v3.ExternalProcesor")))
        .isInstanceOf(IOException.class);
  }
}
