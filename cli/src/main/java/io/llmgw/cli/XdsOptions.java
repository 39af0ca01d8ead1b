package io.llmgw.cli;

import io.llmgw.envoy.xds.XdsServer;
import io.llmgw.envoy.xds.XdsSettings;
import io.llmgw.extproc.Epp;
import java.io.IOException;
import picocli.CommandLine.Option;

/** A plain Envoy's whole configuration over xDS, following the EPP's pools and routes. */
final class XdsOptions {
  @Option(names = "--xds-port", defaultValue = "0",
      description = "Also serve a plain Envoy its whole configuration over xDS (ADS) on this port, following every "
          + "change of pools and routes; start Envoy with envoy-config/envoy-xds.yaml (default: off).")
  int xdsPort;

  @Option(names = "--xds-listener-port", defaultValue = "8080",
      description = "xDS: the port Envoy's listener takes client traffic on (default: ${DEFAULT-VALUE}).")
  int xdsListenerPort;

  @Option(names = "--xds-epp-host", defaultValue = "127.0.0.1",
      description = "xDS: how Envoy reaches this EPP, e.g. its Service's DNS name (default: ${DEFAULT-VALUE}).")
  String xdsEppHost;

  @Option(names = "--xds-batch-service",
      description = "xDS: host:port of the batch service (`llmgw batch`); Envoy then sends /v1/files and /v1/batches "
          + "there without the EPP (default: none).")
  String xdsBatchService;

  @Option(names = "--xds-epp-ca-file", paramLabel = "PATH", description = "xDS, when the EPP serves TLS: where Envoy "
      + "finds the authorities to verify the EPP's certificate (a path in Envoy's container; default: none, Envoy "
      + "accepts any certificate, as a self-signed EPP needs).")
  String xdsEppCaFile;

  @Option(names = "--xds-epp-cert-file", paramLabel = "PATH",
      description = "xDS, mutual TLS: Envoy's client certificate (a path in Envoy's container).")
  String xdsEppCertFile;

  @Option(names = "--xds-epp-key-file", paramLabel = "PATH", description = "xDS, mutual TLS: its key.")
  String xdsEppKeyFile;

  boolean on() {
    return xdsPort > 0;
  }

  int port() {
    return xdsPort;
  }

  /** The xDS server follows the EPP's configuration: whatever the datastore applies is served to Envoy. */
  XdsServer start(Epp epp, String bind) throws IOException {
    XdsSettings served = new XdsSettings("0.0.0.0", xdsListenerPort, xdsEppHost, epp.grpcPort())
        .withBatchService(xdsBatchService);
    if (epp.servesTls()) {
      served = served.withEppTls(new XdsSettings.EppTls(xdsEppCaFile, xdsEppCertFile, xdsEppKeyFile));
    }
    XdsServer xds = XdsServer.start(bind, xdsPort, served);
    epp.datastore().onChange(t -> xds.update(t.config()));
    xds.update(epp.datastore().topology().config());
    return xds;
  }
}
