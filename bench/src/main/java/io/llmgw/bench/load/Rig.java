package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.envoy.devproxy.DevProxy;
import io.llmgw.envoy.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.scraper.ScrapeState;
import io.llmgw.scraper.ServedModels;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * The whole gateway on one machine: simulated pods, the EPP in file mode over them, and the dev proxy in front. What
 * the quickstart, the load benchmark and the end-to-end tests run against.
 */
public final class Rig implements AutoCloseable {
  private final SimPods pods;
  private final Epp epp;
  private final DevProxy proxy;

  private Rig(SimPods pods, Epp epp, DevProxy proxy) {
    this.pods = pods;
    this.epp = epp;
    this.proxy = proxy;
  }

  /**
   * Starts the EPP over {@code config} (which must name {@code pods}), waits until it has scraped every pod, then
   * opens the dev proxy (none when {@code proxySettings} is null: a real Envoy stands in front). The dev proxy walks
   * the EPP's fallback list, so with it the EPP names its fallbacks; Envoy's ORIGINAL_DST cluster takes one address.
   * Takes ownership of {@code pods}: they close with the rig.
   */
  public static Rig start(SimPods pods, EppSettings settings, ProxySettings proxySettings) throws Exception {
    Epp epp = null;
    if (proxySettings != null) {
      settings = settings.withRequests(settings.requests().withDestinationFallbacks(true));
    }
    try {
      epp = Epp.start(settings, Clock.systemUTC());
      awaitScraped(epp, pods);
      DevProxy proxy = proxySettings == null ? null
          : DevProxy.start(proxySettings.withEpp("127.0.0.1", epp.grpcPort()));
      return new Rig(pods, epp, proxy);
    } catch (Exception | Error e) {
      if (epp != null) {
        epp.close();
      }
      pods.close();
      throw e;
    }
  }

  /** A file-mode config with one pool over {@code pods} and a route for each of {@code models}. */
  public static Path writeConfig(Path file, SimPods pods, List<String> models) throws Exception {
    String first = pods.pods().getFirst().address();
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("sim-pool", "sim",
        Integer.parseInt(first.substring(first.lastIndexOf(':') + 1))));
    for (int i = 0; i < models.size(); i++) {
      yaml.append(FileModeYaml.SEPARATOR).append(FileModeYaml.route("route-" + i, "sim-pool", models.get(i), 0));
    }
    yaml.append(FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    Files.writeString(file, yaml);
    return file;
  }

  /** Waits (30 s at most) until the EPP has scraped every pod's metrics and model list. */
  static void awaitScraped(Epp epp, SimPods pods) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (SimServer pod : pods.pods()) {
      while (true) {
        ScrapeState s = epp.datastore().scrapeState(pod.address());
        if (s.healthy() && s.models() != ServedModels.UNKNOWN) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the EPP did not scrape " + pod.address() + " within 30 s: " + s.lastError());
        }
        Thread.sleep(20); // polling a condition with a deadline, not synchronising on time
      }
    }
  }

  public SimPods pods() {
    return pods;
  }

  public Epp epp() {
    return epp;
  }

  /** The dev proxy's port, or -1 without one. */
  public int proxyPort() {
    return proxy == null ? -1 : proxy.port();
  }

  @Override
  public void close() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    epp.close();
    pods.close();
  }
}
