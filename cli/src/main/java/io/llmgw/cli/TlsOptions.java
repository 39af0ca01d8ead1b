package io.llmgw.cli;

import io.llmgw.api.cli.Converters;
import io.llmgw.api.tls.ServerTls;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Whether ext_proc and the metrics port serve TLS, and with which files. */
final class TlsOptions {
  @Option(names = "--tls", negatable = true, description = "Serve ext_proc (and the gRPC health service on its port) "
      + "over TLS; a self-signed certificate when no --tls-cert-file is given (default: on with --kubernetes, off with "
      + "--config).")
  Boolean tls;

  @Option(names = "--tls-cert-file", paramLabel = "FILE", description = "PEM certificate chain to serve (a Secret's "
      + "tls.crt); implies --tls. Read again every --tls-reload-period, so a rotated certificate needs no restart.")
  Path tlsCertFile;

  @Option(names = "--tls-key-file", paramLabel = "FILE", description = "PEM private key of --tls-cert-file (tls.key).")
  Path tlsKeyFile;

  @Option(names = "--tls-client-ca-file", paramLabel = "FILE", description = "Mutual TLS: only clients with a "
      + "certificate from these authorities (PEM) may open ext_proc streams; implies --tls.")
  Path tlsClientCaFile;

  @Option(names = "--tls-reload-period", converter = Converters.PositiveDuration.class, defaultValue = "10s",
      description = "How often the certificate files are read again (default: ${DEFAULT-VALUE}).")
  Duration tlsReloadPeriod;

  @Option(names = "--metrics-tls", description = "Serve the metrics/admin port over TLS too, with the same certificate "
      + "(Prometheus then scrapes with scheme https).")
  boolean metricsTls;

  /** TLS when asked for, or given files, or by default in a cluster; null for plaintext. */
  ServerTls serverTls(boolean cluster) {
    boolean files = tlsCertFile != null || tlsKeyFile != null || tlsClientCaFile != null;
    boolean on = tls != null ? tls : files || cluster;
    if (!on) {
      if (files || metricsTls) {
        throw new IllegalArgumentException(
            "--no-tls contradicts --tls-cert-file, --tls-client-ca-file and --metrics-tls");
      }
      return null;
    }
    return new ServerTls(tlsCertFile, tlsKeyFile, tlsClientCaFile, tlsReloadPeriod);
  }
}
