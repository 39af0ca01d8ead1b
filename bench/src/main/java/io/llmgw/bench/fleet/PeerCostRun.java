package io.llmgw.bench.fleet;

import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToLongFunction;

/**
 * Issue 51, item 6: what a replica pays per peer message, apart from everything else it does. The same fleet ({@link
 * FleetReplica} processes, eight simulated pods publishing KV-cache events, the dev proxy, policy {@code random}) runs
 * twice at each rate, once with the replicas peered (shared secret, every replica watching every other) and once
 * without; after {@code settle} seconds each replica's CPU (JIT compiler threads left out), context switches and peer
 * messages are read over {@code window} seconds. The difference between the arms over the messages each replica
 * handled (sent or received) is its CPU per message; so, read directly and without the arms' noise, is the CPU of the
 * thread that does the exchange's work ({@code PeerLoop}) over the same messages.
 *
 * <p>Usage: {@code key=value ...}: replicas=8 rates=0,4 settle=60 window=20 seed=1 first=unpeered (or {@code
 * peered}: which arm runs first).
 */
public final class PeerCostRun {
  private PeerCostRun() {}

  record Window(double cpuEach, double loopEach, double switchesEach, double messagesEach, double bytesEach,
      RunResult load) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> m = new LinkedHashMap<>(Map.of("replicas", "8", "rates", "0,4", "settle", "60", "window",
        "20", "seed", "1", "first", "unpeered"));
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0 || !m.containsKey(a.substring(0, eq))) {
        throw new IllegalArgumentException("unknown argument '" + a + "'; takes " + m.keySet());
      }
      m.put(a.substring(0, eq), a.substring(eq + 1));
    }
    int n = Integer.parseInt(m.get("replicas"));
    double settle = Double.parseDouble(m.get("settle"));
    double window = Double.parseDouble(m.get("window"));
    long seed = Long.parseLong(m.get("seed"));
    System.out.printf(Locale.ROOT, "peer messages: %d replicas, 8 pods, policy random, %.0f s to settle, %.0f s "
        + "measured, seed %d%n", n, settle, window, seed);
    System.out.println("| rate /s | peers | done/s | replica CPU ms/s each (no JIT) | replica CPU ms per request done "
        + "(all replicas) | its peer loop's CPU ms/s | context switches /s each | peer messages /s each (sent + "
        + "received) | bytes a message |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for (String r : m.get("rates").split(",")) {
      double rate = Double.parseDouble(r);
      boolean peeredFirst = m.get("first").equals("peered");
      // unmeasured: the arm run first otherwise shares the machine with this JVM's own JIT (pods, proxy, client), and
      // cost 65-150 % more than the same arm run second, peered or not
      run(n, rate, true, settle / 2, 1, seed);
      Window first = run(n, rate, peeredFirst, settle, window, seed);
      Window second = run(n, rate, !peeredFirst, settle, window, seed);
      Window on = peeredFirst ? first : second;
      Window off = peeredFirst ? second : first;
      for (Window w : List.of(off, on)) {
        System.out.printf(Locale.ROOT, "| %.0f | %s | %s | %.1f | %s | %.1f | %.0f | %.0f | %.0f |%n", rate,
            w == on ? "yes" : "no", w.load() == null ? "–" : String.format(Locale.ROOT, "%.1f",
                w.load().throughput()),
            w.cpuEach(), w.load() == null || w.load().throughput() <= 0 ? "–" : String.format(Locale.ROOT, "%.0f",
                w.cpuEach() * n / w.load().throughput()),
            w.loopEach(), w.switchesEach(), w.messagesEach(),
            w.messagesEach() == 0 ? 0 : w.bytesEach() / w.messagesEach());
      }
      double perMessage = (on.cpuEach() - off.cpuEach()) / Math.max(1e-9, on.messagesEach());
      System.out.printf(Locale.ROOT, "rate %.0f/s: %.0f µs of a replica's CPU per message it sent or received (arms' "
          + "difference), %.0f µs on its peer loop's thread; %.2f context switches per message%n", rate,
          perMessage * 1000, on.loopEach() / Math.max(1e-9, on.messagesEach()) * 1000,
          (on.switchesEach() - off.switchesEach()) / Math.max(1e-9, on.messagesEach()));
    }
    System.exit(0);
  }

  private static Window run(int n, double rate, boolean peered, double settle, double window, long seed)
      throws Exception {
    SimConfig sim = SimConfig.builder().decode(20, 1.0).adapters(List.of()).capacity(16, 1024, 1024).seed(seed)
        .kvEvents(KvEventsConfig.DEFAULT_ON).build();
    Path dir = Files.createTempDirectory("llmgw-peer-cost");
    Path secret = ReplicaProcess.newSecret(dir);
    Workload chat = Workload.chat(SimConfig.DEFAULT_MODEL);
    List<ReplicaProcess> replicas = new ArrayList<>();
    try (SimPods pods = SimPods.start(sim, 8, "127.0.0.11", 8000)) {
      Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, chat.models());
      for (int i = 0; i < n; i++) {
        replicas.add(new ReplicaProcess("127.0.0." + (41 + i), dir, null));
      }
      for (ReplicaProcess r : replicas) {
        r.start(config, "random", peered ? replicas.stream().filter(o -> o != r).map(ReplicaProcess::peerAddress)
            .toList() : List.of(), secret);
      }
      ProxySettings proxy = ProxySettings.defaults().withListener("127.0.0.1", 0)
          .withEpps(replicas.stream().map(ReplicaProcess::grpcAddress).toList());
      try (DevProxy front = DevProxy.start(proxy)) {
        CompletableFuture<RunResult> load = rate <= 0 ? null : CompletableFuture.supplyAsync(() -> {
          try {
            return new OpenLoopRun("127.0.0.1", front.port(), chat, rate, settle + window + 5, seed, 4096, 120)
                .run(x -> {});
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
        Thread.sleep((long) (settle * 1000)); // the unmeasured part of the run, not a synchronisation
        long cpu0 = sum(replicas, r -> r.cpuMillis() - r.jitMillis());
        long loop0 = sum(replicas, ReplicaProcess::peerLoopMillis);
        long sw0 = sum(replicas, ReplicaProcess::switches);
        double msg0 = sumMetric(replicas, "llmgw_peer_messages_total");
        double bytes0 = sumMetric(replicas, "llmgw_peer_bytes_total");
        Thread.sleep((long) (window * 1000)); // the measurement window itself
        double cpu = (sum(replicas, r -> r.cpuMillis() - r.jitMillis()) - cpu0) / window / n;
        double loop = (sum(replicas, ReplicaProcess::peerLoopMillis) - loop0) / window / n;
        double sw = (sum(replicas, ReplicaProcess::switches) - sw0) / window / n;
        double msg = peered ? (sumMetric(replicas, "llmgw_peer_messages_total") - msg0) / window / n : 0;
        double by = peered ? (sumMetric(replicas, "llmgw_peer_bytes_total") - bytes0) / window / n : 0;
        return new Window(cpu, loop, sw, msg, by, load == null ? null : load.get());
      }
    } finally {
      for (ReplicaProcess r : replicas) {
        r.stop();
      }
    }
  }

  private static long sum(List<ReplicaProcess> replicas, ToLongFunction<ReplicaProcess> f) {
    return replicas.stream().mapToLong(f).sum();
  }

  /** The metric summed over the replicas, each read again (up to three times) when a busy replica did not answer. */
  private static double sumMetric(List<ReplicaProcess> replicas, String name) {
    double sum = 0;
    for (ReplicaProcess r : replicas) {
      double v = Double.NaN;
      for (int i = 0; i < 3 && Double.isNaN(v); i++) {
        v = r.metric(name);
      }
      sum += v;
    }
    return sum;
  }
}
