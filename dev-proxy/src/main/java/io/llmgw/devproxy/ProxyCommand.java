package io.llmgw.devproxy;

import io.llmgw.api.cli.SettingFlags;
import io.llmgw.api.tls.ClientTls;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "proxy", mixinStandardHelpOptions = true,
    description = "Run the dev proxy: an Envoy stand-in that calls the EPP over ext_proc. For local use and tests; "
        + "production runs Envoy with envoy-config/envoy.yaml.")
public final class ProxyCommand implements Callable<Integer> {
  private static final SettingFlags FLAGS = new SettingFlags(Map.of("proxy.epps", "--epp", "proxy.maxRetries",
      "--max-retries", "proxy.batchService", "--batch-service", "proxy.failOpen", "--fail-open",
      "proxy.defaultEndpoints", "--default-endpoints"));

  @Option(names = "--listen", defaultValue = "127.0.0.1:8080", description = "host:port (default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(names = "--epp", defaultValue = "127.0.0.1:9002", split = ",",
      description = "EPP ext_proc host:port; several replicas comma-separated, health-checked, a stream that fails "
          + "before its EPP answered is replayed on another (default: ${DEFAULT-VALUE}).")
  List<String> epps;

  @Option(names = "--epp-ca-file", paramLabel = "FILE",
      description = "Reach the EPPs over TLS, verifying their certificate against these authorities (PEM).")
  Path eppCaFile;

  @Option(names = "--epp-tls-insecure",
      description = "Reach the EPPs over TLS without verifying their certificate (a self-signed EPP), as Envoy does "
          + "with no validation context.")
  boolean eppTlsInsecure;

  @Option(names = "--epp-cert-file", paramLabel = "FILE", description = "Mutual TLS: the certificate to present.")
  Path eppCertFile;

  @Option(names = "--epp-key-file", paramLabel = "FILE", description = "Mutual TLS: the key of --epp-cert-file.")
  Path eppKeyFile;

  @Option(names = "--fail-open", split = ",", paramLabel = "PATH_PREFIX",
      description = "Routes that go on without the EPP when no replica can finish with a request (failure_mode_allow)"
          + "; the others fail closed: 500 (default: none).")
  List<String> failOpen = new ArrayList<>();

  @Option(names = "--default-endpoints", split = ",", paramLabel = "HOST:PORT",
      description = "Where a fail-open request the EPP never picked for goes, round robin (default: none).")
  List<String> defaultEndpoints = new ArrayList<>();

  @Option(names = "--batch-service", description = "host:port of `llmgw batch`: /v1/files and /v1/batches go there "
      + "without the EPP (default: none, they get 404).")
  String batchService;

  @Override
  public Integer call() throws Exception {
    ProxySettings s;
    try {
      int l = listen.lastIndexOf(':');
      boolean tls = eppCaFile != null || eppTlsInsecure || eppCertFile != null;
      s = ProxySettings.defaults().withListener(listen.substring(0, l), Integer.parseInt(listen.substring(l + 1)))
          .withEpps(epps).withBatchService(batchService)
          .withEppTls(tls ? new ClientTls(eppCaFile, eppCertFile, eppKeyFile, eppTlsInsecure) : null)
          .withFailure(FailureMode.openFor(failOpen, defaultEndpoints));
    } catch (RuntimeException ex) {
      System.err.println("llmgw proxy: " + FLAGS.explain(ex) + " (see --help)");
      return 2;
    }
    DevProxy proxy;
    try {
      proxy = DevProxy.start(s);
    } catch (IOException e) {
      System.err.println("llmgw proxy: " + e.getMessage());
      return 2;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      proxy.close();
      stopped.countDown();
    }, "proxy-shutdown"));
    stopped.await();
    return 0;
  }
}
