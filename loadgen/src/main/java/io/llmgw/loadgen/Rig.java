package io.llmgw.loadgen;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.ListenSettings;
import io.llmgw.extproc.peers.PeerKey;
import io.llmgw.scraper.ScrapeState;
import io.llmgw.scraper.ServedModels;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * The whole gateway on one machine: simulated pods, the EPP in file mode over them, and the dev proxy in front. What
 * the quickstart, the load benchmark and the end-to-end tests run against.
 */
public final class Rig implements AutoCloseable {
  /** The replicas' shared secret, new for every run of the bench. */
  private static final PeerKey PEER_KEY = PeerKey.of(
      UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
  private final SimPods pods;
  private final List<Epp> epps;
  private final DevProxy proxy;

  private Rig(SimPods pods, List<Epp> epps, DevProxy proxy) {
    this.pods = pods;
    this.epps = epps;
    this.proxy = proxy;
  }

  /**
   * Starts the EPP over {@code config} (which must name {@code pods}), waits until it has scraped every pod, then
   * opens the dev proxy (none when {@code proxySettings} is null: a real Envoy stands in front). The dev proxy walks
   * the EPP's fallback list, so with it the EPP names its fallbacks; Envoy's ORIGINAL_DST cluster takes one address.
   * Takes ownership of {@code pods}: they close with the rig.
   */
  public static Rig start(SimPods pods, EppSettings settings, ProxySettings proxySettings) throws Exception {
    return start(pods, settings, proxySettings, 1);
  }

  /**
   * As {@link #start(SimPods, EppSettings, ProxySettings)} with {@code replicas} EPPs over the same file (each with its
   * own ports and its own state, as replicas in separate processes would be), the dev proxy spreading streams over them.
   */
  public static Rig start(SimPods pods, EppSettings settings, ProxySettings proxySettings, int replicas)
      throws Exception {
    return start(pods, settings, proxySettings, replicas, true);
  }

  /**
   * @param sharedCounts replicas watch each other's in-flight counts ({@code --peers}, on fixed health ports), as they
   *     should
   */
  public static Rig start(SimPods pods, EppSettings settings, ProxySettings proxySettings, int replicas,
      boolean sharedCounts) throws Exception {
    return start(pods, settings, proxySettings, Collections.nCopies(replicas, settings.listen().bindHost()),
        sharedCounts);
  }

  /**
   * As {@link #start(SimPods, EppSettings, ProxySettings, int, boolean)} with each replica bound to its own address
   * (127.0.0.N), which it also watches its peers from: a link between two replicas can then be cut by address.
   */
  public static Rig start(SimPods pods, EppSettings settings, ProxySettings proxySettings, List<String> replicaHosts,
      boolean sharedCounts) throws Exception {
    int replicas = replicaHosts.size();
    if (replicas < 1 || replicas > 1 && proxySettings == null) {
      throw new IllegalArgumentException("EPP replicas need the dev proxy in front, and there is at least one");
    }
    List<Epp> epps = new ArrayList<>();
    if (proxySettings != null) {
      settings = settings.withRequests(settings.requests().withDestinationFallbacks(true));
    }
    try {
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < replicas; i++) {
        addresses.add(reachable(replicaHosts.get(i)) + ":" + (replicas > 1 && sharedCounts ? LoopbackPorts.free() : 0));
      }
      for (int i = 0; i < replicas; i++) {
        ListenSettings l = settings.listen();
        EppSettings own = settings.withListen(l.on(replicaHosts.get(i), l.grpcPort(), l.healthPort(),
            l.metricsPort()));
        if (replicas > 1 && sharedCounts) {
          List<String> others = new ArrayList<>(addresses);
          String self = others.remove(i);
          own = settings.withListen(l.on(replicaHosts.get(i), l.grpcPort(),
              Integer.parseInt(self.substring(self.indexOf(':') + 1)), l.metricsPort()).withPeers(others)
              .withPeerKey(PEER_KEY));
        }
        epps.add(Epp.start(own, Clock.systemUTC()));
      }
      for (Epp epp : epps) {
        awaitScraped(epp, pods);
      }
      if (replicas > 1 && sharedCounts) {
        awaitPeers(epps);
      }
      DevProxy proxy = proxySettings == null ? null
          : DevProxy.start(proxySettings.withEpps(IntStream.range(0, replicas)
              .mapToObj(i -> reachable(replicaHosts.get(i)) + ":" + epps.get(i).grpcPort()).toList()));
      return new Rig(pods, List.copyOf(epps), proxy);
    } catch (Exception | Error e) {
      for (Epp epp : epps) {
        epp.close();
      }
      pods.close();
      throw e;
    }
  }

  /** Where a replica bound to {@code host} is reached: loopback for a wildcard. */
  private static String reachable(String host) {
    return host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
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
  public static void awaitScraped(Epp epp, SimPods pods) throws InterruptedException {
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

  /**
   * Waits (30 s at most) until every replica hears every other: a replica that starts before its peers listen tries
   * them again each second, and what it routes before they watch it is told to no one.
   */
  static void awaitPeers(List<Epp> epps) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (Epp epp : epps) {
      while (epp.datastore().peers().freshPeers() < epps.size() - 1) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("an EPP replica did not hear its peers within 30 s");
        }
        Thread.sleep(20); // polling a condition with a deadline, not synchronising on time
      }
    }
  }

  public SimPods pods() {
    return pods;
  }

  /** The first EPP replica (the only one unless several were asked for). */
  public Epp epp() {
    return epps.getFirst();
  }

  public List<Epp> epps() {
    return epps;
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
    for (Epp epp : epps) {
      epp.close();
    }
    pods.close();
  }
}
