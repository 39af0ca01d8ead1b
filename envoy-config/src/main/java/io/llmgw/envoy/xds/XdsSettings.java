package io.llmgw.envoy.xds;

/**
 * What the served Envoy configuration needs besides pools and routes.
 *
 * @param listenPort the port Envoy's listener takes client traffic on
 * @param eppHost how Envoy reaches the EPP's ext_proc and health ports (a DNS name is resolved by Envoy)
 */
public record XdsSettings(String listenAddress, int listenPort, String eppHost, int eppPort, int eppHealthPort) {
  public XdsSettings {
    for (int port : new int[] {listenPort, eppPort, eppHealthPort}) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("xDS ports must be within 1..65535");
      }
    }
  }
}
