package io.llmgw.extproc.observe;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.llmgw.extproc.peers.PeerLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC health on its own plaintext port: {@code ""}, {@code liveness}, {@code readiness} and the ext_proc service
 * name, and beside it what the EPP shares with its peer replicas (given to {@link #start}).
 * Liveness is SERVING from the start, until {@link Vitals} finds the EPP broken; readiness and the service only once
 * routes and pods are loaded and ext_proc listens, and never while the EPP is broken. Readiness may be set before the
 * port is open.
 */
public final class HealthServer implements AutoCloseable {
  public static final String EXT_PROC_SERVICE = ExternalProcessorGrpc.SERVICE_NAME;

  /** Half the peers' keepalive period, so that a ping early by scheduling jitter is not taken for abuse. */
  private static final long KEEPALIVE_PERMIT_MILLIS = 1_000;
  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;
  private boolean ready;
  private boolean alive = true;
  private boolean closed;

  public HealthServer() {
    setReady(false);
  }

  public void start(InetSocketAddress bind, ServerServiceDefinition... alongside) throws IOException {
    start(bind, null, List.of(alongside));
  }

  /** @param peers the peer exchange's thread, which the peers' watches are served on; null: gRPC's shared ones */
  public void start(InetSocketAddress bind, PeerLoop peers, List<ServerServiceDefinition> alongside)
      throws IOException {
    NettyServerBuilder builder = NettyServerBuilder.forAddress(bind);
    if (peers != null) {
      peers.server(builder);
    }
    // peers ping their watch streams (PeerExchange.KEEPALIVE_MILLIS) to notice a cut link, and this server pings its
    // watchers alike, so that a watcher cut off stops holding a stream here
    builder.addService(health.getHealthService())
        .permitKeepAliveTime(KEEPALIVE_PERMIT_MILLIS, TimeUnit.MILLISECONDS).permitKeepAliveWithoutCalls(true)
        .keepAliveTime(KEEPALIVE_PERMIT_MILLIS * 2, TimeUnit.MILLISECONDS)
        .keepAliveTimeout(KEEPALIVE_PERMIT_MILLIS * 2, TimeUnit.MILLISECONDS);
    for (ServerServiceDefinition s : alongside) {
      builder.addService(s);
    }
    // started without this object's lock: the bind runs on the peer loop, which may be setting readiness meanwhile
    Server started = builder.build().start();
    synchronized (this) {
      server = started;
      if (closed) {
        started.shutdownNow();
      }
    }
  }

  /** The same health service, for the ext_proc port (over its TLS, for proxies that health-check there). */
  public BindableService service() {
    return health.getHealthService();
  }

  public synchronized void setReady(boolean ready) {
    this.ready = ready;
    publish();
  }

  /** False when the EPP is broken: liveness fails (the orchestrator restarts it) and so does everything else. */
  public synchronized void setAlive(boolean alive) {
    this.alive = alive;
    publish();
  }

  private void publish() {
    ServingStatus s = ready && alive ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, s);
    health.setStatus("readiness", s);
    health.setStatus(EXT_PROC_SERVICE, s);
    health.setStatus("liveness", alive ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  /** Whether readiness answers SERVING now. */
  public synchronized boolean serving() {
    return ready && alive;
  }

  public synchronized int port() {
    return server == null ? -1 : server.getPort();
  }

  @Override
  public synchronized void close() {
    closed = true;
    health.enterTerminalState();
    if (server != null) {
      server.shutdownNow();
    }
  }
}
