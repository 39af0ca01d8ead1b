package io.llmgw.envoy.xds;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.api.GatewayConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Envoy its configuration over ADS (and the separate LDS/RDS/CDS services), from java-control-plane's snapshot
 * cache. Every gateway configuration the EPP applies becomes a new snapshot; one that yields the same resources keeps
 * the version, so Envoy is only told about real changes.
 */
public final class XdsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(XdsServer.class);

  private final XdsSettings settings;
  private final SimpleCache<String> cache = new SimpleCache<>(node -> XdsNames.NODE_GROUP);
  private final Server grpc;
  private XdsResources current;
  private long version;

  private XdsServer(String bindHost, int port, XdsSettings settings) throws IOException {
    this.settings = settings;
    V3DiscoveryServer discovery = new V3DiscoveryServer(cache);
    grpc = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port))
        .addService(discovery.getAggregatedDiscoveryServiceImpl())
        .addService(discovery.getListenerDiscoveryServiceImpl())
        .addService(discovery.getRouteDiscoveryServiceImpl())
        .addService(discovery.getClusterDiscoveryServiceImpl())
        .build();
    update(GatewayConfig.empty());
    grpc.start();
  }

  public static XdsServer start(String bindHost, int port, XdsSettings settings) throws IOException {
    XdsServer server = new XdsServer(bindHost, port, settings);
    LOG.info("xDS (ADS) on {}:{}: Envoy listener {}:{}, EPP at {}:{}", bindHost, server.port(),
        settings.listenAddress(), settings.listenPort(), settings.eppHost(), settings.eppPort());
    return server;
  }

  /** Publishes the resources for {@code config}; returns the version Envoy will see. */
  public synchronized String update(GatewayConfig config) {
    XdsResources next = XdsResources.of(config, settings);
    if (!next.equals(current)) {
      current = next;
      version++;
      cache.setSnapshot(XdsNames.NODE_GROUP, Snapshot.create(next.clusters(), List.of(), next.listeners(),
          next.routes(), List.of(), Long.toString(version)));
      LOG.info("xDS version {}: {} clusters, {} Envoy routes", version, next.clusters().size(),
          next.routes().getFirst().getVirtualHosts(0).getRoutesCount());
    }
    return Long.toString(version);
  }

  public int port() {
    return grpc.getPort();
  }

  @Override
  public void close() {
    grpc.shutdownNow();
    try {
      grpc.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
