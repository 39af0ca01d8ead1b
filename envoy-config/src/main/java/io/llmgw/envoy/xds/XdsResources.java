package io.llmgw.envoy.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.OutlierDetection;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.BackoffStrategy;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.DataSource;
import io.envoyproxy.envoy.config.core.v3.GrpcService;
import io.envoyproxy.envoy.config.core.v3.HealthCheck;
import io.envoyproxy.envoy.config.core.v3.Http2ProtocolOptions;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.Filter;
import io.envoyproxy.envoy.config.listener.v3.FilterChain;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.RetryPolicy;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.MetadataOptions;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.HeaderSendMode;
import io.envoyproxy.envoy.extensions.filters.http.header_mutation.v3.HeaderMutation;
import io.envoyproxy.envoy.extensions.filters.http.header_mutation.v3.Mutations;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.InferencePool;
import io.llmgw.api.LLMRoute;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The Envoy configuration for a gateway configuration, as xDS resources: the same listener, ext_proc filter and
 * clusters as {@code envoy.yaml}, plus one original-destination cluster per InferencePool and one Envoy route per
 * LLMRoute (matched on the {@code x-llmgw-route} header the EPP sets), so Envoy's statistics break down by pool and use
 * case. The listener names its routes through RDS, so route and pool changes never drain the listener.
 *
 * @param clusters the EPP cluster, the default cluster, the batch service's when there is one, then one per pool
 */
public record XdsResources(List<Listener> listeners, List<RouteConfiguration> routes, List<Cluster> clusters) {

  public static XdsResources of(GatewayConfig config, XdsSettings s) {
    List<Cluster> clusters = new ArrayList<>();
    clusters.add(eppCluster(s));
    clusters.add(originalDestination(XdsNames.DEFAULT_CLUSTER));
    if (s.batchService() != null) {
      clusters.add(batchCluster(s.batchService()));
    }
    List<InferencePool> pools = config.pools().stream()
        .sorted(Comparator.comparing((InferencePool p) -> p.namespace()).thenComparing(InferencePool::name)).toList();
    for (InferencePool p : pools) {
      clusters.add(originalDestination(XdsNames.poolCluster(p.namespace(), p.name())));
    }
    return new XdsResources(List.of(listener(s)), List.of(routeConfiguration(config, s)), List.copyOf(clusters));
  }

  private static RouteConfiguration routeConfiguration(GatewayConfig config, XdsSettings s) {
    VirtualHost.Builder host = VirtualHost.newBuilder().setName("all").addDomains("*");
    if (s.batchService() != null) {
      host.addRoutes(toBatchService("/v1/files", 300)).addRoutes(toBatchService("/v1/batches", 60));
    }
    List<LLMRoute> routes = config.routes().stream()
        .sorted(Comparator.comparing((LLMRoute r) -> r.namespace()).thenComparing(LLMRoute::name)).toList();
    for (LLMRoute r : routes) {
      String cluster = config.pools().stream()
          .filter(p -> p.namespace().equals(r.namespace()) && p.name().equals(r.poolNames().getFirst()))
          .findFirst().map(p -> XdsNames.poolCluster(p.namespace(), p.name())).orElse(XdsNames.DEFAULT_CLUSTER);
      host.addRoutes(Route.newBuilder().setName(XdsNames.routeName(r.namespace(), r.name()))
          .setMatch(RouteMatch.newBuilder().setPrefix("/").addHeaders(HeaderMatcher.newBuilder()
              .setName(EppProtocol.ROUTE)
              .setStringMatch(StringMatcher.newBuilder().setExact(r.namespace() + "/" + r.name()))))
          .setRoute(forward(cluster)));
    }
    host.addRoutes(Route.newBuilder().setName("default").setMatch(RouteMatch.newBuilder().setPrefix("/"))
        .setRoute(forward(XdsNames.DEFAULT_CLUSTER)));
    return RouteConfiguration.newBuilder().setName(XdsNames.ROUTE_CONFIG).addVirtualHosts(host).build();
  }

  /** No route timeout (streams may run for minutes); a refused or reset connection, or a 503, tries the next pod. */
  private static RouteAction forward(String cluster) {
    return RouteAction.newBuilder().setCluster(cluster).setTimeout(seconds(0))
        .setRetryPolicy(RetryPolicy.newBuilder().setRetryOn("connect-failure,reset,retriable-status-codes")
            .addRetriableStatusCodes(503).setNumRetries(UInt32Value.of(2)))
        .build();
  }

  /** OpenAI's Files and Batches API go to the batch service, with ext_proc off: they name no model. */
  private static Route toBatchService(String prefix, long timeoutSeconds) {
    return Route.newBuilder().setMatch(RouteMatch.newBuilder().setPathSeparatedPrefix(prefix))
        .setRoute(RouteAction.newBuilder().setCluster(XdsNames.BATCH_CLUSTER).setTimeout(seconds(timeoutSeconds)))
        .putTypedPerFilterConfig("envoy.filters.http.ext_proc", Any.pack(ExtProcPerRoute.newBuilder()
            .setDisabled(true).build()))
        .build();
  }

  private static Cluster batchCluster(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return Cluster.newBuilder().setName(XdsNames.BATCH_CLUSTER)
        .setType(Cluster.DiscoveryType.STRICT_DNS)
        .setConnectTimeout(seconds(2))
        .setLoadAssignment(ClusterLoadAssignment.newBuilder().setClusterName(XdsNames.BATCH_CLUSTER)
            .addEndpoints(LocalityLbEndpoints.newBuilder().addLbEndpoints(LbEndpoint.newBuilder()
                .setEndpoint(Endpoint.newBuilder().setAddress(address(hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))))))))
        .build();
  }

  private static Listener listener(XdsSettings s) {
    ExternalProcessor extProc = ExternalProcessor.newBuilder()
        .setGrpcService(GrpcService.newBuilder()
            .setEnvoyGrpc(GrpcService.EnvoyGrpc.newBuilder().setClusterName(XdsNames.EPP_CLUSTER))
            .setTimeout(seconds(10))
            // a stream that cannot be opened, or fails before the EPP answered, goes to another replica
            .setRetryPolicy(io.envoyproxy.envoy.config.core.v3.RetryPolicy.newBuilder().setNumRetries(UInt32Value.of(2))
                .setRetryBackOff(BackoffStrategy.newBuilder().setBaseInterval(millis(50)).setMaxInterval(millis(500)))))
        // fail closed: no request reaches a pod the EPP did not pick (envoy-config/README.md has the trade-off)
        .setFailureModeAllow(false)
        .setMessageTimeout(seconds(35))
        .setProcessingMode(ProcessingMode.newBuilder()
            .setRequestHeaderMode(HeaderSendMode.SEND).setResponseHeaderMode(HeaderSendMode.SEND)
            .setRequestBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
            .setResponseBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
            .setRequestTrailerMode(HeaderSendMode.SEND).setResponseTrailerMode(HeaderSendMode.SEND))
        .setMetadataOptions(MetadataOptions.newBuilder()
            .setForwardingNamespaces(MetadataOptions.MetadataNamespaces.newBuilder()
                .addUntyped(EppProtocol.SUBSET_HINT_NAMESPACE).addUntyped(EppProtocol.LB_NAMESPACE))
            .setReceivingNamespaces(MetadataOptions.MetadataNamespaces.newBuilder()
                .addUntyped(EppProtocol.LB_NAMESPACE)))
        .build();
    HttpConnectionManager hcm = HttpConnectionManager.newBuilder()
        .setStatPrefix(XdsNames.LISTENER)
        .setCodecType(HttpConnectionManager.CodecType.AUTO)
        .setStreamIdleTimeout(seconds(300))
        .setRds(Rds.newBuilder().setRouteConfigName(XdsNames.ROUTE_CONFIG).setConfigSource(ConfigSource.newBuilder()
            .setAds(AggregatedConfigSource.getDefaultInstance()).setResourceApiVersion(ApiVersion.V3)))
        // the tenant header is the gateway's (issue 31), the prefill pod's the EPP's: a client's are removed first
        .addHttpFilters(HttpFilter.newBuilder().setName("envoy.filters.http.header_mutation").setTypedConfig(Any.pack(
            HeaderMutation.newBuilder().setMutations(Mutations.newBuilder().addRequestMutations(
                io.envoyproxy.envoy.config.common.mutation_rules.v3.HeaderMutation.newBuilder()
                    .setRemove(EppProtocol.TENANT))
                .addRequestMutations(io.envoyproxy.envoy.config.common.mutation_rules.v3.HeaderMutation.newBuilder()
                    .setRemove(EppProtocol.PREFILLER)))
                .build())))
        .addHttpFilters(
            HttpFilter.newBuilder().setName("envoy.filters.http.ext_proc").setTypedConfig(Any.pack(extProc)))
        .addHttpFilters(HttpFilter.newBuilder().setName("envoy.filters.http.router")
            .setTypedConfig(Any.pack(Router.getDefaultInstance())))
        .build();
    return Listener.newBuilder().setName(XdsNames.LISTENER)
        .setAddress(address(s.listenAddress(), s.listenPort()))
        .addFilterChains(FilterChain.newBuilder().addFilters(Filter.newBuilder()
            .setName("envoy.filters.network.http_connection_manager").setTypedConfig(Any.pack(hcm))))
        .build();
  }

  private static Cluster originalDestination(String name) {
    return Cluster.newBuilder().setName(name)
        .setType(Cluster.DiscoveryType.ORIGINAL_DST)
        .setLbPolicy(Cluster.LbPolicy.CLUSTER_PROVIDED)
        .setConnectTimeout(seconds(2))
        .setOriginalDstLbConfig(Cluster.OriginalDstLbConfig.newBuilder().setUseHttpHeader(true)
            .setHttpHeaderName(EppProtocol.DESTINATION))
        .setCircuitBreakers(CircuitBreakers.newBuilder().addThresholds(CircuitBreakers.Thresholds.newBuilder()
            .setMaxConnections(UInt32Value.of(40_000)).setMaxPendingRequests(UInt32Value.of(40_000))
            .setMaxRequests(UInt32Value.of(40_000)).setMaxRetries(UInt32Value.of(1024))))
        .build();
  }

  /**
   * The EPP over HTTP/2 (and TLS when it serves TLS), health-checked on its ext_proc port's gRPC readiness service so a
   * replica that is not ready (starting, or draining on SIGTERM) gets no new streams, and a replica that fails a
   * stream's connection ejected at once.
   */
  private static Cluster eppCluster(XdsSettings s) {
    HttpProtocolOptions h2 = HttpProtocolOptions.newBuilder()
        .setExplicitHttpConfig(HttpProtocolOptions.ExplicitHttpConfig.newBuilder()
            .setHttp2ProtocolOptions(Http2ProtocolOptions.getDefaultInstance()))
        .build();
    Cluster.Builder c = Cluster.newBuilder().setName(XdsNames.EPP_CLUSTER)
        .setType(Cluster.DiscoveryType.STRICT_DNS)
        .setLbPolicy(Cluster.LbPolicy.LEAST_REQUEST)
        .setConnectTimeout(seconds(2))
        .putTypedExtensionProtocolOptions("envoy.extensions.upstreams.http.v3.HttpProtocolOptions", Any.pack(h2))
        .addHealthChecks(HealthCheck.newBuilder().setTimeout(seconds(1)).setInterval(seconds(2))
            .setUnhealthyThreshold(UInt32Value.of(2)).setHealthyThreshold(UInt32Value.of(1))
            .setGrpcHealthCheck(HealthCheck.GrpcHealthCheck.newBuilder().setServiceName("readiness")))
        .setOutlierDetection(OutlierDetection.newBuilder().setSplitExternalLocalOriginErrors(true)
            .setConsecutiveLocalOriginFailure(UInt32Value.of(1)).setBaseEjectionTime(seconds(5)))
        .setLoadAssignment(ClusterLoadAssignment.newBuilder().setClusterName(XdsNames.EPP_CLUSTER)
            .addEndpoints(LocalityLbEndpoints.newBuilder().addLbEndpoints(LbEndpoint.newBuilder()
                .setEndpoint(Endpoint.newBuilder().setAddress(address(s.eppHost(), s.eppPort()))))));
    if (s.eppTls() != null) {
      c.setTransportSocket(eppTransportSocket(s.eppTls(), s.eppHost()));
    }
    return c.build();
  }

  /** TLS to the EPP: verified against the CA when one is given, with Envoy's certificate under mutual TLS. */
  static TransportSocket eppTransportSocket(XdsSettings.EppTls tls, String sni) {
    CommonTlsContext.Builder common = CommonTlsContext.newBuilder();
    if (tls.caFile() != null) {
      common.setValidationContext(CertificateValidationContext.newBuilder()
          .setTrustedCa(DataSource.newBuilder().setFilename(tls.caFile())));
    }
    if (tls.certFile() != null) {
      common.addTlsCertificates(TlsCertificate.newBuilder()
          .setCertificateChain(DataSource.newBuilder().setFilename(tls.certFile()))
          .setPrivateKey(DataSource.newBuilder().setFilename(tls.keyFile())));
    }
    return TransportSocket.newBuilder().setName("envoy.transport_sockets.tls")
        .setTypedConfig(Any.pack(UpstreamTlsContext.newBuilder().setSni(sni).setCommonTlsContext(common).build()))
        .build();
  }

  private static Address address(String host, int port) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(host).setPortValue(port))
        .build();
  }

  private static Duration millis(int ms) {
    return Duration.newBuilder().setNanos(ms * 1_000_000).build();
  }

  private static Duration seconds(long s) {
    return Duration.newBuilder().setSeconds(s).build();
  }
}
