package io.llmgw.devproxy;

import io.llmgw.api.BodyLimit;

import io.llmgw.api.SettingException;
import io.llmgw.api.tls.ClientTls;
import java.time.Duration;
import java.util.List;

/**
 * The dev proxy's settings, mirroring {@code envoy.yaml}: its listener, the EPP replicas it calls, the upstream connect
 * timeout, and how many fallbacks a request may try (Envoy's {@code num_retries: 2}).
 *
 * @param epps host:port of each EPP replica's ext_proc port
 * @param maxBodyBytes request bodies kept for retries; larger ones are answered 413, as Envoy's buffer limit does
 * @param batchService host:port of the batch service that {@code /v1/files} and {@code /v1/batches} go to without the
 *     EPP (Envoy's route with ext_proc disabled), or null for none
 * @param eppTls how to reach the EPPs over TLS; null for plaintext
 * @param eppHealthInterval how often each replica's readiness is checked (with two or more replicas)
 * @param failure which routes fail open, and where their unpicked requests go
 */
public record ProxySettings(String host, int port, List<String> epps, Duration connectTimeout, int maxRetries,
    int maxBodyBytes, String batchService, ClientTls eppTls, Duration eppHealthInterval, FailureMode failure) {
  public ProxySettings {
    epps = List.copyOf(epps);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("ports must be within 0..65535");
    }
    if (epps.isEmpty()) {
      throw new SettingException("proxy.epps", "needs at least one host:port");
    }
    for (String e : epps) {
      if (!e.matches(".+:[0-9]{1,5}") || Integer.parseInt(e.substring(e.lastIndexOf(':') + 1)) < 1
          || Integer.parseInt(e.substring(e.lastIndexOf(':') + 1)) > 65535) {
        throw new SettingException("proxy.epps", "takes host:port with a port within 1..65535, not " + e);
      }
    }
    if (maxRetries < 0) {
      throw new SettingException("proxy.maxRetries", "must not be negative");
    }
    if (batchService != null && !batchService.matches(".+:[0-9]{1,5}")) {
      throw new SettingException("proxy.batchService", "takes host:port");
    }
  }

  public static ProxySettings defaults() {
    return new ProxySettings("127.0.0.1", 8080, List.of("127.0.0.1:9002"), Duration.ofSeconds(2), 2,
        BodyLimit.DEFAULT_BYTES, null,
        null, Duration.ofMillis(500), FailureMode.closed());
  }

  public ProxySettings withListener(String h, int p) {
    return new ProxySettings(h, p, epps, connectTimeout, maxRetries, maxBodyBytes, batchService, eppTls,
        eppHealthInterval, failure);
  }

  public ProxySettings withEpp(String h, int p) {
    return withEpps(List.of(h + ":" + p));
  }

  public ProxySettings withEpps(List<String> replicas) {
    return new ProxySettings(host, port, replicas, connectTimeout, maxRetries, maxBodyBytes, batchService, eppTls,
        eppHealthInterval, failure);
  }

  public ProxySettings withBatchService(String hostPort) {
    return new ProxySettings(host, port, epps, connectTimeout, maxRetries, maxBodyBytes, hostPort, eppTls,
        eppHealthInterval, failure);
  }

  public ProxySettings withEppTls(ClientTls tls) {
    return new ProxySettings(host, port, epps, connectTimeout, maxRetries, maxBodyBytes, batchService, tls,
        eppHealthInterval, failure);
  }

  public ProxySettings withFailure(FailureMode mode) {
    return new ProxySettings(host, port, epps, connectTimeout, maxRetries, maxBodyBytes, batchService, eppTls,
        eppHealthInterval, mode);
  }
}
