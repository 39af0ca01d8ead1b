package io.llmgw.bench.capacity;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Epp;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The bench's stand-in for Kubernetes: pools of simulated vLLM pods that grow and shrink on demand. A pod asked for
 * costs from that moment, serves after its pool's load time (then it is started and listed in the EPP's file, as a
 * Deployment's pod joins the endpoints once Ready), and when let go it is first unlisted, then stopped once the EPP
 * routes nothing more to it and its engine is idle (so nothing in flight is dropped). Everything runs on one scheduler
 * thread: no locks.
 */
final class SimCluster implements AutoCloseable {
  /** @param firstHost pods get 127.0.0.firstHost, firstHost+1, … */
  record PoolSpec(String name, String app, SimConfig sim, double pricePerHour, double loadSeconds, int firstHost,
      int maxPods) {}

  private record Pod(int host, SimPods sim, long allocatedNanos) {
    String ip() {
      return "127.0.0." + host;
    }
  }

  private final class Pool {
    final PoolSpec spec;
    final List<Pod> ready = new ArrayList<>();
    final List<ScheduledFuture<?>> starting = new ArrayList<>();
    final List<Long> startingSince = new ArrayList<>();
    final List<Integer> startingHosts = new ArrayList<>();
    final List<Pod> draining = new ArrayList<>();
    double podSeconds;
    int peak;

    Pool(PoolSpec spec) {
      this.spec = spec;
    }

    int count() {
      return ready.size() + starting.size();
    }

    int freeHost() {
      for (int h = spec.firstHost(); h < spec.firstHost() + spec.maxPods(); h++) {
        if (!in(h)) {
          return h;
        }
      }
      return -1;
    }

    private boolean in(int host) {
      return startingHosts.contains(host) || draining.stream().anyMatch(p -> p.host() == host)
          || ready.stream().anyMatch(p -> p.host() == host);
    }
  }

  private final Path configFile;
  private final String baseYaml;
  private final int port;
  private final ScheduledExecutorService scheduler;
  private final Map<String, Pool> pools = new LinkedHashMap<>();
  private Epp epp;
  private int drops;

  SimCluster(Path configFile, String baseYaml, int port, List<PoolSpec> specs, ScheduledExecutorService scheduler) {
    this.configFile = configFile;
    this.baseYaml = baseYaml;
    this.port = port;
    this.scheduler = scheduler;
    specs.forEach(s -> pools.put(s.name(), new Pool(s)));
  }

  /** Starts {@code counts} pods at once (the cluster as it was before the run) and writes the file. */
  void startWith(Map<String, Integer> counts) throws Exception {
    long now = System.nanoTime();
    for (Pool p : pools.values()) {
      for (int i = 0; i < counts.getOrDefault(p.spec.name(), 0); i++) {
        int host = p.freeHost();
        p.ready.add(new Pod(host, SimPods.start(p.spec.sim(), List.of("127.0.0." + host), port), now));
      }
      p.peak = p.count();
    }
    writeConfig();
  }

  /** The EPP whose routing the cluster waits out before stopping a pod. */
  void watchedBy(Epp e) {
    this.epp = e;
  }

  /** On the scheduler thread: asks for {@code n} pods of the pool (within its bounds). */
  void scaleTo(String pool, int wanted) throws Exception {
    Pool p = pools.get(pool);
    int n = Math.max(0, Math.min(wanted, p.spec.maxPods()));
    while (p.count() < n) {
      int host = p.freeHost();
      if (host < 0) {
        break;
      }
      long since = System.nanoTime();
      p.startingHosts.add(host);
      p.startingSince.add(since);
      ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
      self[0] = scheduler.schedule(() -> ready(p, host, since, self[0]), (long) (p.spec.loadSeconds() * 1000),
          TimeUnit.MILLISECONDS);
      p.starting.add(self[0]);
    }
    while (p.count() > n && !p.starting.isEmpty()) { // a pod still loading is let go first: it serves nobody
      int last = p.starting.size() - 1;
      p.starting.remove(last).cancel(false);
      p.podSeconds += (System.nanoTime() - p.startingSince.remove(last)) / 1e9;
      p.startingHosts.remove(last);
    }
    boolean unlisted = false;
    while (p.count() > n && p.ready.size() > 0) {
      Pod gone = p.ready.removeLast();
      p.draining.add(gone);
      unlisted = true;
      scheduler.schedule(() -> drain(p, gone), 200, TimeUnit.MILLISECONDS);
    }
    if (unlisted) {
      writeConfig();
    }
    p.peak = Math.max(p.peak, p.count());
  }

  private void ready(Pool p, int host, long since, ScheduledFuture<?> self) {
    try {
      int i = p.starting.indexOf(self);
      if (i < 0) {
        return; // let go while it loaded
      }
      p.starting.remove(i);
      p.startingSince.remove(i);
      p.startingHosts.remove(i);
      p.ready.add(new Pod(host, SimPods.start(p.spec.sim(), List.of("127.0.0." + host), port), since));
      writeConfig();
    } catch (Exception e) {
      throw new IllegalStateException("pod 127.0.0." + host + " did not start", e);
    }
  }

  /** Stops the pod once the EPP no longer lists it, routes nothing to it and its engine is idle. */
  private void drain(Pool p, Pod pod) {
    String address = pod.ip() + ":" + port;
    var server = pod.sim().pods().getFirst();
    boolean listed = epp != null && epp.datastore().topology().addresses().contains(address);
    boolean busy = server.engine().runningCount() + server.engine().waitingCount() > 0
        || epp != null && epp.datastore().inFlight().load(address).total() > 0;
    if (listed || busy) {
      scheduler.schedule(() -> drain(p, pod), 200, TimeUnit.MILLISECONDS);
      return;
    }
    try {
      pod.sim().close();
    } catch (Exception e) {
      drops++;
    }
    p.podSeconds += (System.nanoTime() - pod.allocatedNanos()) / 1e9;
    p.draining.remove(pod);
  }

  private void writeConfig() throws Exception {
    StringBuilder yaml = new StringBuilder(baseYaml);
    for (Pool p : pools.values()) {
      for (Pod pod : p.ready) {
        yaml.append(FileModeYaml.SEPARATOR)
            .append(FileModeYaml.pod(p.spec.app() + "-" + pod.host(), p.spec.app(), pod.ip()));
      }
    }
    Path next = configFile.resolveSibling(configFile.getFileName() + ".next");
    Files.writeString(next, yaml);
    Files.move(next, configFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  int pods(String pool) {
    return pools.get(pool).count();
  }

  int readyPods(String pool) {
    return pools.get(pool).ready.size();
  }

  int peak(String pool) {
    return pools.get(pool).peak;
  }

  /** Pod-seconds so far (pods asked for and not yet let go count to now). */
  double podSeconds(String pool) {
    Pool p = pools.get(pool);
    long now = System.nanoTime();
    double s = p.podSeconds;
    for (Pod pod : p.ready) {
      s += (now - pod.allocatedNanos()) / 1e9;
    }
    for (Pod pod : p.draining) {
      s += (now - pod.allocatedNanos()) / 1e9;
    }
    for (long since : p.startingSince) {
      s += (now - since) / 1e9;
    }
    return s;
  }

  /** What the pods cost so far, at each pool's price per pod-hour. */
  double cost() {
    double c = 0;
    for (Pool p : pools.values()) {
      c += podSeconds(p.spec.name()) * p.spec.pricePerHour() / 3600;
    }
    return c;
  }

  /** Pods whose stop failed (none expected). */
  int failedStops() {
    return drops;
  }

  @Override
  public void close() throws Exception {
    for (Pool p : pools.values()) {
      p.starting.forEach(f -> f.cancel(false));
      for (Pod pod : p.ready) {
        pod.sim().close();
      }
      for (Pod pod : p.draining) {
        pod.sim().close();
      }
    }
  }
}
