package io.llmgw.envoy.devproxy;

import java.time.Duration;

/**
 * The dev proxy's settings, mirroring {@code envoy.yaml}: its listener, the EPP it calls, the upstream connect timeout,
 * and how many fallbacks a request may try (Envoy's {@code num_retries: 2}).
 *
 * @param maxBodyBytes request bodies kept for retries; larger ones are answered 413, as Envoy's buffer limit does
 * @param batchService host:port of the batch service that {@code /v1/files} and {@code /v1/batches} go to without the
 *     EPP (Envoy's route with ext_proc disabled), or null for none
 */
public record ProxySettings(String host, int port, String eppHost, int eppPort, Duration connectTimeout,
    int maxRetries, int maxBodyBytes, String batchService) {
  public ProxySettings {
    if (port < 0 || port > 65535 || eppPort < 1 || eppPort > 65535) {
      throw new IllegalArgumentException("ports must be within 0..65535 (the EPP's within 1..65535)");
    }
    if (maxRetries < 0) {
      throw new IllegalArgumentException("--max-retries must not be negative");
    }
    if (batchService != null && !batchService.matches(".+:[0-9]{1,5}")) {
      throw new IllegalArgumentException("--batch-service takes host:port");
    }
  }

  public static ProxySettings defaults() {
    return new ProxySettings("127.0.0.1", 8080, "127.0.0.1", 9002, Duration.ofSeconds(2), 2, 16 << 20, null);
  }

  public ProxySettings withListener(String h, int p) {
    return new ProxySettings(h, p, eppHost, eppPort, connectTimeout, maxRetries, maxBodyBytes, batchService);
  }

  public ProxySettings withEpp(String h, int p) {
    return new ProxySettings(host, port, h, p, connectTimeout, maxRetries, maxBodyBytes, batchService);
  }

  public ProxySettings withBatchService(String hostPort) {
    return new ProxySettings(host, port, eppHost, eppPort, connectTimeout, maxRetries, maxBodyBytes, hostPort);
  }
}
