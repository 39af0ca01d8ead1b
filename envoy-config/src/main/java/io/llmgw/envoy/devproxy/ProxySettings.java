package io.llmgw.envoy.devproxy;

import java.time.Duration;

/**
 * The dev proxy's settings, mirroring {@code envoy.yaml}: its listener, the EPP it calls, the upstream connect timeout,
 * and how many fallbacks a request may try (Envoy's {@code num_retries: 2}).
 *
 * @param maxBodyBytes request bodies kept for retries; larger ones are answered 413, as Envoy's buffer limit does
 */
public record ProxySettings(String host, int port, String eppHost, int eppPort, Duration connectTimeout,
    int maxRetries, int maxBodyBytes) {
  public ProxySettings {
    if (port < 0 || port > 65535 || eppPort < 1 || eppPort > 65535) {
      throw new IllegalArgumentException("ports must be within 0..65535 (the EPP's within 1..65535)");
    }
    if (maxRetries < 0) {
      throw new IllegalArgumentException("--max-retries must not be negative");
    }
  }

  public static ProxySettings defaults() {
    return new ProxySettings("127.0.0.1", 8080, "127.0.0.1", 9002, Duration.ofSeconds(2), 2, 16 << 20);
  }

  public ProxySettings withListener(String h, int p) {
    return new ProxySettings(h, p, eppHost, eppPort, connectTimeout, maxRetries, maxBodyBytes);
  }

  public ProxySettings withEpp(String h, int p) {
    return new ProxySettings(host, port, h, p, connectTimeout, maxRetries, maxBodyBytes);
  }
}
