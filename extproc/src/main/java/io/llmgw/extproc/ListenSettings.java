package io.llmgw.extproc;

import io.llmgw.extproc.observe.AdminAccess;
import java.time.Duration;

/**
 * Where the EPP listens.
 *
 * @param bindHost address the three servers listen on
 * @param grpcPort ext_proc (0 picks a free port)
 * @param keepAlivePermit how often a proxy may ping an idle ext_proc connection before it is told off
 * @param shutdownGrace how long open streams may go on after readiness turned off at shutdown
 * @param admin who may read and change things on the metrics/admin port
 */
public record ListenSettings(String bindHost, int grpcPort, int healthPort, int metricsPort, Duration keepAlivePermit,
    Duration shutdownGrace, AdminAccess admin) {
  public ListenSettings {
    for (int port : new int[] {grpcPort, healthPort, metricsPort}) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("ports must be within 0..65535");
      }
    }
  }

  public static ListenSettings defaults() {
    return new ListenSettings("0.0.0.0", 9002, 9003, 9090, Duration.ofSeconds(10), Duration.ofSeconds(5),
        AdminAccess.readOnly());
  }

  public ListenSettings on(String host, int grpc, int health, int metrics) {
    return new ListenSettings(host, grpc, health, metrics, keepAlivePermit, shutdownGrace, admin);
  }

  public ListenSettings withAdmin(AdminAccess access) {
    return new ListenSettings(bindHost, grpcPort, healthPort, metricsPort, keepAlivePermit, shutdownGrace, access);
  }
}
