package io.llmgw.envoy.xds;

/**
 * What the served Envoy configuration needs besides pools and routes.
 *
 * @param listenPort the port Envoy's listener takes client traffic on
 * @param eppHost how Envoy reaches the EPP's ext_proc and health ports (a DNS name is resolved by Envoy)
 * @param batchService host:port of the batch service that {@code /v1/files} and {@code /v1/batches} go to, or null
 */
public record XdsSettings(String listenAddress, int listenPort, String eppHost, int eppPort, int eppHealthPort,
    String batchService) {
  public XdsSettings {
    for (int port : new int[] {listenPort, eppPort, eppHealthPort}) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("xDS ports must be within 1..65535");
      }
    }
    if (batchService != null && (batchService.lastIndexOf(':') < 1 || !batchService.substring(
        batchService.lastIndexOf(':') + 1).matches("[0-9]{1,5}"))) {
      throw new IllegalArgumentException("--xds-batch-service takes host:port, not '" + batchService + "'");
    }
  }

  public XdsSettings(String listenAddress, int listenPort, String eppHost, int eppPort, int eppHealthPort) {
    this(listenAddress, listenPort, eppHost, eppPort, eppHealthPort, null);
  }
}
