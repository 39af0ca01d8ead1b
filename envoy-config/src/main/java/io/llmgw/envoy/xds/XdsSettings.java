package io.llmgw.envoy.xds;

import io.llmgw.api.SettingException;
/**
 * What the served Envoy configuration needs besides pools and routes.
 *
 * @param listenPort the port Envoy's listener takes client traffic on
 * @param eppHost how Envoy reaches the EPP's ext_proc port, where it also health-checks (a DNS name is resolved by
 *     Envoy: a headless Service gives one host per replica)
 * @param batchService host:port of the batch service that {@code /v1/files} and {@code /v1/batches} go to, or null
 * @param eppTls how Envoy reaches the EPP over TLS; null for plaintext
 */
public record XdsSettings(String listenAddress, int listenPort, String eppHost, int eppPort, String batchService,
    EppTls eppTls) {
  public XdsSettings {
    for (int port : new int[] {listenPort, eppPort}) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("xDS ports must be within 1..65535");
      }
    }
    if (batchService != null && (batchService.lastIndexOf(':') < 1 || !batchService.substring(
        batchService.lastIndexOf(':') + 1).matches("[0-9]{1,5}"))) {
      throw new SettingException("xds.batchService", "takes host:port, not '" + batchService + "'");
    }
  }

  public XdsSettings(String listenAddress, int listenPort, String eppHost, int eppPort) {
    this(listenAddress, listenPort, eppHost, eppPort, null, null);
  }

  public XdsSettings withBatchService(String hostPort) {
    return new XdsSettings(listenAddress, listenPort, eppHost, eppPort, hostPort, eppTls);
  }

  public XdsSettings withEppTls(EppTls tls) {
    return new XdsSettings(listenAddress, listenPort, eppHost, eppPort, batchService, tls);
  }

  /**
   * Files as Envoy's container sees them (Secret mounts), none of them read here.
   *
   * @param caFile authorities to verify the EPP's certificate; null: any certificate (a self-signed EPP)
   * @param certFile Envoy's client certificate for mutual TLS, or null
   * @param keyFile its key
   */
  public record EppTls(String caFile, String certFile, String keyFile) {
    public EppTls {
      if ((certFile == null) != (keyFile == null)) {
        throw new IllegalArgumentException("Envoy's client certificate needs its key, and a key its certificate");
      }
    }
  }
}
