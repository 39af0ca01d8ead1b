package io.llmgw.envoy.devproxy;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "proxy", mixinStandardHelpOptions = true,
    description = "Run the dev proxy: an Envoy stand-in that calls the EPP over ext_proc. For local use and tests; "
        + "production runs Envoy with envoy-config/envoy.yaml.")
public final class ProxyCommand implements Callable<Integer> {
  @Option(names = "--listen", defaultValue = "127.0.0.1:8080", description = "host:port (default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(names = "--epp", defaultValue = "127.0.0.1:9002", description = "EPP ext_proc host:port (default: ${DEFAULT-VALUE}).")
  String epp;

  @Option(names = "--batch-service", description = "host:port of `llmgw batch`: /v1/files and /v1/batches go there "
      + "without the EPP (default: none, they get 404).")
  String batchService;

  @Override
  public Integer call() throws Exception {
    ProxySettings s;
    try {
      int l = listen.lastIndexOf(':');
      int e = epp.lastIndexOf(':');
      s = ProxySettings.defaults().withListener(listen.substring(0, l), Integer.parseInt(listen.substring(l + 1)))
          .withEpp(epp.substring(0, e), Integer.parseInt(epp.substring(e + 1))).withBatchService(batchService);
    } catch (RuntimeException ex) {
      System.err.println("llmgw proxy: --listen, --epp and --batch-service take host:port (" + ex.getMessage() + ")");
      return 2;
    }
    DevProxy proxy = DevProxy.start(s);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      proxy.close();
      stopped.countDown();
    }, "proxy-shutdown"));
    stopped.await();
    return 0;
  }
}
