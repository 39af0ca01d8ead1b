package io.llmgw.cli;

import io.llmgw.api.cli.SettingFlags;
import java.util.Map;

/** The serve command's flags for the settings the EPP's libraries name when they refuse a value. */
final class ServeFlags {
  static final SettingFlags FLAGS = new SettingFlags(Map.ofEntries(
      Map.entry("requests.maxBodyBytes", "--max-body-bytes"),
      Map.entry("requests.maxStreams", "--max-streams"),
      Map.entry("requests.maxBufferedBytes", "--max-buffered-bytes"),
      Map.entry("requests.maxRequestDuration", "--max-request-duration"),
      Map.entry("requests.idleTimeout", "--request-idle-timeout"),
      Map.entry("requests.explainEvery", "--explain-every"),
      Map.entry("listen.metricsTls", "--metrics-tls"),
      Map.entry("listen.tls", "--tls"),
      Map.entry("listen.peerService", "--peers-service"),
      Map.entry("listen.peerWarmTimeout", "--peers-warm-timeout"),
      Map.entry("listen.peers", "--peers"),
      Map.entry("listen.batchStatus", "--batch-status"),
      Map.entry("listen.frontDoor", "--front-door"),
      Map.entry("listen.peerSecretFile", "--peers-secret-file"),
      Map.entry("listen.peersInsecure", "--peers-insecure"),
      Map.entry("traces.sampleRatio", "--trace-sample-ratio"),
      Map.entry("traces.otlpEndpoint", "--otlp-endpoint"),
      Map.entry("tenancy.tenantHeader", "--tenant-header"),
      Map.entry("tenancy.keysReloadPeriod", "--api-keys-reload-period"),
      Map.entry("tenancy.apiKeysFile", "--api-keys-file"),
      Map.entry("scrape.interval", "--scrape-interval"),
      Map.entry("flow.ttl", "--flow-ttl"),
      Map.entry("tls.certFile", "--tls-cert-file"),
      Map.entry("tls.keyFile", "--tls-key-file"),
      Map.entry("xds.batchService", "--xds-batch-service"),
      Map.entry("kvEvents.port", "--kv-events-port"),
      Map.entry("kvEvents.replayPort", "--kv-events-replay-port"),
      Map.entry("kvEvents.maxMessageBytes", "--kv-events-max-message-bytes"),
      Map.entry("kvEvents.budgetBytes", "--kv-events-budget-bytes"),
      Map.entry("kvEvents.podBytesPerSecond", "--kv-events-pod-bytes-per-second"),
      Map.entry("adapters.mmeshPort", "--mmesh-port"),
      Map.entry("adapters.loadWaitTimeout", "--load-wait-timeout")));

  private ServeFlags() {}
}
