package io.llmgw.cli;

import io.llmgw.api.TokenFile;
import io.llmgw.api.cli.Converters;
import io.llmgw.api.tls.ServerTls;
import io.llmgw.extproc.ListenSettings;
import io.llmgw.extproc.observe.AdminAccess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Where the EPP listens, who may use its admin port, and how it stops. */
final class ListenOptions {
  @Option(names = "--bind",
      description = "Address to listen on (default: 127.0.0.1 with --config, where the proxy runs "
          + "beside the EPP; 0.0.0.0 with --kubernetes, where the gateway's pods connect from elsewhere).")
  String bind;

  @Option(names = "--grpc-port", description = "ext_proc port (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(names = "--health-port", description = "gRPC health port (default: ${DEFAULT-VALUE}).")
  int healthPort;

  @Option(names = "--metrics-port", description = "Prometheus metrics port (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--admin-token-file", description = "File holding the token that admin writes (POST /admin/...) "
      + "need as `Authorization: Bearer TOKEN`; without one they are off (default: none).")
  Path adminTokenFile;

  @Option(names = "--read-token-file", description = "File holding a token that reads of the metrics/admin port "
      + "(/metrics, GET /admin/...) need; the admin token works too (default: none, reads are open).")
  Path readTokenFile;

  @Option(names = "--drain-period", converter = Converters.PositiveDuration.class, defaultValue = "5s",
      description = "On SIGTERM: readiness goes off at once, and new streams are still served this long so the proxies "
          + "move to another replica first (longer than their health-check interval × unhealthy threshold; default: "
          + "${DEFAULT-VALUE}).")
  Duration drainPeriod;

  @Option(names = "--shutdown-grace", converter = Converters.PositiveDuration.class, defaultValue = "30s",
      description = "Then: how long the streams still open may go on before they are cut (keep it under the pod's "
          + "terminationGracePeriodSeconds minus --drain-period; default: ${DEFAULT-VALUE}).")
  Duration shutdownGrace;

  @Option(names = "--batch-status", paramLabel = "HOST:PORT", description = "The batch service's address (`llmgw "
      + "batch --listen`): the status page shows its queues and budgets, read through this EPP at most once a second "
      + "(default: none).")
  String batchStatus;

  @Option(names = "--front-door", paramLabel = "URL", description = "The base URL clients send to (Envoy's listener, "
      + "e.g. http://gateway.example:8080), shown on the status page: the EPP sits behind it and cannot know it "
      + "(default: none).")
  String frontDoor;

  /** The listen flags over the defaults, on the host {@code --bind} names, else the mode's own. */
  ListenSettings listen(ListenSettings defaults, boolean cluster, ServerTls tls, boolean metricsTls) {
    String host = bind != null ? bind : cluster ? "0.0.0.0" : "127.0.0.1";
    AdminAccess access;
    try {
      access = AdminAccess.of(TokenFile.read(adminTokenFile), TokenFile.read(readTokenFile));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read a token file: " + e.getMessage());
    }
    return defaults.on(host, grpcPort, healthPort, metricsPort).withAdmin(access).withTls(tls, metricsTls)
        .withStopping(drainPeriod, shutdownGrace).withBatchStatus(batchStatus).withFrontDoor(frontDoor);
  }
}
