package io.llmgw.envoy.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.InferencePool;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.RouteAdapter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A real ADS stream against the xDS server: what Envoy is served, and that changes of pools and routes reach it. */
class XdsServerTest {
  static final XdsSettings SETTINGS = new XdsSettings("0.0.0.0", 8080, "epp.llm.svc", 9002);

  static InferencePool pool(String name) {
    return new InferencePool("default", name, Map.of("app", name), List.of(8000));
  }

  static LLMRoute route(String name, String pool, String model) {
    return new LLMRoute("default", name, List.of(pool), new RouteAdapter(model, 0, List.of(), List.of()));
  }

  static GatewayConfig config(List<InferencePool> pools, List<LLMRoute> routes) {
    return new GatewayConfig(pools, routes, List.of(), List.of());
  }

  static List<String> names(List<Cluster> clusters) {
    return clusters.stream().map(Cluster::getName).toList();
  }

  static List<String> routeNames(RouteConfiguration rc) {
    return rc.getVirtualHosts(0).getRoutesList().stream().map(Route::getName).toList();
  }

  @Test
  void envoyGetsListenerClustersAndRoutesAndEveryChangeOfPoolsAndRoutesIsPushed() throws Exception {
    try (XdsServer xds = XdsServer.start("127.0.0.1", 0, SETTINGS); AdsClient envoy = new AdsClient(xds.port())) {
      String v1 = xds.update(config(List.of(pool("llama")), List.of(route("chat", "llama", "chat-lora"))));

      envoy.subscribe(AdsClient.CLUSTERS);
      var cds = envoy.next(AdsClient.CLUSTERS);
      assertThat(cds.getVersionInfo()).isEqualTo(v1);
      List<Cluster> clusters = AdsClient.unpack(cds, Cluster.class);
      assertThat(names(clusters)).containsExactly("epp", "model_servers", "pool/default/llama");
      Cluster pool = clusters.get(2);
      assertThat(pool.getType()).isEqualTo(Cluster.DiscoveryType.ORIGINAL_DST);
      assertThat(pool.getLbPolicy()).isEqualTo(Cluster.LbPolicy.CLUSTER_PROVIDED);
      assertThat(pool.getOriginalDstLbConfig().getHttpHeaderName()).isEqualTo("x-gateway-destination-endpoint");
      assertThat(clusters.getFirst().getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint()
          .getAddress().getSocketAddress().getAddress()).isEqualTo("epp.llm.svc");

      envoy.subscribe(AdsClient.LISTENERS);
      Listener listener = AdsClient.unpack(envoy.next(AdsClient.LISTENERS), Listener.class).getFirst();
      HttpConnectionManager hcm = listener.getFilterChains(0).getFilters(0).getTypedConfig()
          .unpack(HttpConnectionManager.class);
      assertThat(hcm.getRds().getRouteConfigName()).isEqualTo("llm_routes");
      assertThat(io.llmgw.envoy.TenantHeader.removedFirst(hcm)).as("issue 31: the tenant header").isTrue();
      ExternalProcessor extProc = hcm.getHttpFilters(1).getTypedConfig().unpack(ExternalProcessor.class);
      assertThat(extProc.getGrpcService().getEnvoyGrpc().getClusterName()).isEqualTo("epp");
      assertThat(extProc.getProcessingMode().getRequestBodyMode()).isEqualTo(BodySendMode.FULL_DUPLEX_STREAMED);
      assertThat(extProc.getMetadataOptions().getReceivingNamespaces().getUntypedList()).containsExactly("envoy.lb");

      envoy.subscribe(AdsClient.ROUTES, "llm_routes");
      RouteConfiguration rc = AdsClient.unpack(envoy.next(AdsClient.ROUTES, "llm_routes"), RouteConfiguration.class)
          .getFirst();
      assertThat(routeNames(rc)).containsExactly("llmroute/default/chat", "default");
      Route chat = rc.getVirtualHosts(0).getRoutes(0);
      assertThat(chat.getMatch().getHeaders(0).getName()).isEqualTo("x-llmgw-route");
      assertThat(chat.getMatch().getHeaders(0).getStringMatch().getExact()).isEqualTo("default/chat");
      assertThat(chat.getRoute().getCluster()).isEqualTo("pool/default/llama");

      String v2 = xds.update(config(List.of(pool("llama"), pool("mistral")),
          List.of(route("chat", "llama", "chat-lora"), route("code", "mistral", "code-lora"))));
      assertThat(v2).isNotEqualTo(v1);
      assertThat(names(AdsClient.unpack(envoy.next(AdsClient.CLUSTERS), Cluster.class)))
          .containsExactly("epp", "model_servers", "pool/default/llama", "pool/default/mistral");
      RouteConfiguration rc2 = AdsClient.unpack(envoy.next(AdsClient.ROUTES, "llm_routes"), RouteConfiguration.class)
          .getFirst();
      assertThat(routeNames(rc2)).containsExactly("llmroute/default/chat", "llmroute/default/code", "default");
      assertThat(rc2.getVirtualHosts(0).getRoutes(1).getRoute().getCluster()).isEqualTo("pool/default/mistral");

      assertThat(xds.update(config(List.of(pool("llama"), pool("mistral")),
          List.of(route("chat", "llama", "chat-lora"), route("code", "mistral", "code-lora")))))
          .as("the same configuration is the same version").isEqualTo(v2);

      String v3 = xds.update(config(List.of(pool("mistral")), List.of(route("code", "mistral", "code-lora"))));
      var cds3 = envoy.next(AdsClient.CLUSTERS);
      assertThat(cds3.getVersionInfo()).isEqualTo(v3);
      assertThat(names(AdsClient.unpack(cds3, Cluster.class))).doesNotContain("pool/default/llama");
      assertThat(routeNames(AdsClient.unpack(envoy.next(AdsClient.ROUTES, "llm_routes"), RouteConfiguration.class)
          .getFirst())).containsExactly("llmroute/default/code", "default");
    }
  }
}
