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
 * Liveness is SERVING from the start; readiness and the service only once routes and pods are loaded.
 */
public final class HealthServer implements AutoCloseable {
  public static final String EXT_PROC_SERVICE = ExternalProcessorGrpc.SERVICE_NAME;

  private final HealthStatusManager health = new HealthStatusManager();
  private final Server server;

  public HealthServer(InetSocketAddress bind) throws IOException {
    health.setStatus("liveness", ServingStatus.SERVING);
    setReady(false);
    server = NettyServerBuilder.forAddress(bind).addService(health.getHealthService()).build().start();
  }

  public void setReady(boolean ready) {
    ServingStatus s = ready ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, s);
    health.setStatus("readiness", s);
    health.setStatus(EXT_PROC_SERVICE, s);
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    health.enterTerminalState();
    server.shutdownNow();
  }
}
