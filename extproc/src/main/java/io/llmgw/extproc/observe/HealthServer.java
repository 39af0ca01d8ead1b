package io.llmgw.extproc.observe;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * gRPC health on its own port: {@code ""}, {@code liveness}, {@code readiness} and the ext_proc service name.
 * Liveness is SERVING from the start; readiness and the service only once routes and pods are loaded and ext_proc
 * listens. Readiness may be set before the port is open.
 */
public final class HealthServer implements AutoCloseable {
  public static final String EXT_PROC_SERVICE = ExternalProcessorGrpc.SERVICE_NAME;

  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;

  public HealthServer() {
    health.setStatus("liveness", ServingStatus.SERVING);
    setReady(false);
  }

  public synchronized void start(InetSocketAddress bind) throws IOException {
    server = NettyServerBuilder.forAddress(bind).addService(health.getHealthService()).build().start();
  }

  public void setReady(boolean ready) {
    ServingStatus s = ready ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, s);
    health.setStatus("readiness", s);
    health.setStatus(EXT_PROC_SERVICE, s);
  }

  public synchronized int port() {
    return server == null ? -1 : server.getPort();
  }

  @Override
  public synchronized void close() {
    health.enterTerminalState();
    if (server != null) {
      server.shutdownNow();
    }
  }
}
