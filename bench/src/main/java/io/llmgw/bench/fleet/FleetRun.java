package io.llmgw.bench.fleet;

import io.llmgw.api.TempTree;
import io.llmgw.bench.ProcessCpu;
import io.llmgw.bench.faults.LinkCut;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.PoolStats;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Issue 51, item 7: EPP replicas as the field runs them, each a JVM of its own on an address of its own
 * ({@link FleetReplica}, 127.0.0.41 and on), peers with a shared secret, every replica following every pod's KV-cache
 * events; eight simulated pods and the dev proxy in this JVM, the open-loop chat workload through the proxy. For each
 * replica count and policy: TTFT, prefix-cache hits, and what the replicas cost — each one's CPU idle (peers and pods
 * only) and per request under load, from {@code /proc/<pid>/stat} — with this JVM's own CPU (client, proxy, pods)
 * beside it. Optionally a replica is SIGKILLed and restarted mid-run ({@code kill-at=S}), or cut off from its peers
 * for {@code cut-for=S} seconds ({@code cut-at=S}; root in a network namespace of its own, as {@code PartitionRun}),
 * and the hit ratio is printed per window of {@code window=S} seconds. With {@code aot=on} (JDK 25 and later) the
 * replicas start from an ahead-of-time cache recorded first by the launcher's training run ({@link AotTraining}), as
 * {@code llmgw serve} does through the launcher; {@code aot=off} starts them cold.
 *
 * <p>Usage: {@code key=value ...}: replicas=1,2,4,8 policies=random,seed+session,scorers,precise rate=20 duration=20
 * seed=1 warmup=8 idle=5 kill-at=-1 cut-at=-1 cut-for=30 window=5 aot=on.
 */
public final class FleetRun {
  private FleetRun() {}

  record Settings(List<Integer> replicas, List<String> policies, double rate, double duration, long seed,
      double warmup, double idle, double killAt, double cutAt, double cutFor, double window, boolean aot) {
    static Settings parse(String[] args) {
      Map<String, String> m = new LinkedHashMap<>(Map.of("replicas", "1,2,4,8", "policies",
          "random,seed+session,scorers,precise", "rate", "20", "duration", "20", "seed", "1", "warmup", "8", "idle",
          "5", "kill-at", "-1", "cut-at", "-1", "cut-for", "30"));
      m.put("window", "5");
      m.put("aot", "on");
      for (String a : args) {
        int eq = a.indexOf('=');
        if (eq < 0 || !m.containsKey(a.substring(0, eq))) {
          throw new IllegalArgumentException("unknown argument '" + a + "'; takes " + m.keySet());
        }
        m.put(a.substring(0, eq), a.substring(eq + 1));
      }
      return new Settings(List.of(m.get("replicas").split(",")).stream().map(Integer::parseInt).toList(),
          List.of(m.get("policies").split(",")), Double.parseDouble(m.get("rate")),
          Double.parseDouble(m.get("duration")), Long.parseLong(m.get("seed")), Double.parseDouble(m.get("warmup")),
          Double.parseDouble(m.get("idle")), Double.parseDouble(m.get("kill-at")), Double.parseDouble(m.get("cut-at")),
          Double.parseDouble(m.get("cut-for")), Double.parseDouble(m.get("window")), switch (m.get("aot")) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("aot takes on or off, not '" + m.get("aot") + "'");
          });
    }
  }

  public static void main(String[] args) throws Exception {
    Settings s = Settings.parse(args);
    SimConfig sim = SimConfig.builder().decode(20, 1.0).adapters(List.of()).capacity(16, 1024, 1024).seed(s.seed())
        .kvEvents(KvEventsConfig.DEFAULT_ON).build();
    System.out.printf(Locale.ROOT, "fleet: chat at %.0f/s for %.0f s (after %.0f s unmeasured), 8 pods, seed %d%s%s%n",
        s.rate(), s.duration(), s.warmup(), s.seed(), s.killAt() >= 0 ? ", replica 1 SIGKILLed at " + s.killAt() + " s"
            : "",
        s.cutAt() >= 0 ? ", replica 1 cut off at " + s.cutAt() + " s for " + s.cutFor() + " s" : "");
    Path aotDir = Files.createTempDirectory("llmgw-aot");
    Path aot = s.aot() ? AotTraining.record(aotDir) : null;
    System.out.println("| replicas | policy | done/s | errors | TTFT p50 / p90 ms | prefix-cache hits | replica CPU "
        + "idle, ms/s each (no JIT) | replica CPU ms/request, all replicas (no JIT) | their JIT compilers' CPU ms/s "
        + "| this JVM's CPU ms/s | hits per window |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (int n : s.replicas()) {
      for (String policy : s.policies()) {
        System.out.println(runOne(s, sim, n, policy, aot));
      }
    }
    TempTree.delete(aotDir);
    System.exit(0);
  }

  private static String runOne(Settings s, SimConfig sim, int n, String policy, Path aot) throws Exception {
    Path dir = Files.createTempDirectory("llmgw-fleet");
    Path secret = ReplicaProcess.newSecret(dir);
    Workload chat = Workload.chat(SimConfig.DEFAULT_MODEL);
    List<ReplicaProcess> replicas = new ArrayList<>();
    ScheduledExecutorService faults = Executors.newScheduledThreadPool(2);
    LinkCut link = new LinkCut();
    try (SimPods pods = SimPods.start(sim, 8, "127.0.0.11", 8000)) {
      Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, chat.models());
      for (int i = 0; i < n; i++) {
        replicas.add(new ReplicaProcess("127.0.0." + (41 + i), dir, aot));
      }
      for (ReplicaProcess r : replicas) {
        r.start(config, policy, peersOf(r, replicas), secret);
      }
      awaitFleet(replicas);
      ProxySettings proxy = ProxySettings.defaults().withListener("127.0.0.1", 0)
          .withEpps(replicas.stream().map(ReplicaProcess::grpcAddress).toList());
      try (DevProxy front = DevProxy.start(proxy)) {
        new OpenLoopRun("127.0.0.1", front.port(), chat, s.rate(), s.warmup(), ~s.seed(), 4096, 120).run(x -> {});
        long idle0 = cpu(replicas) - jit(replicas); // the replicas now serve nothing
        Thread.sleep((long) (s.idle() * 1000)); // the measurement window of the idle cost, not a synchronisation
        double idleEach = (cpu(replicas) - jit(replicas) - idle0) / s.idle() / n;
        PoolStats before = PoolStats.of(pods);
        long replicasBefore = cpu(replicas);
        long jitBefore = jit(replicas);
        long selfBefore = ProcessCpu.selfMillis();
        List<String> windows = new ArrayList<>();
        PoolStats[] last = {before};
        faults.scheduleAtFixedRate(() -> {
          PoolStats now = PoolStats.of(pods);
          long prompt = now.promptTokens() - last[0].promptTokens();
          windows.add(prompt == 0 ? "–" : String.format(Locale.ROOT, "%.0f",
              100.0 * (now.cachedPromptTokens() - last[0].cachedPromptTokens()) / prompt));
          last[0] = now;
        }, (long) (s.window() * 1000), (long) (s.window() * 1000), TimeUnit.MILLISECONDS);
        ReplicaProcess victim = replicas.size() > 1 ? replicas.get(1) : null;
        if (victim != null && s.killAt() >= 0) {
          faults.schedule(() -> {
            victim.kill();
            victim.start(config, policy, peersOf(victim, replicas), secret);
            return null;
          }, (long) (s.killAt() * 1000), TimeUnit.MILLISECONDS);
        }
        if (victim != null && s.cutAt() >= 0) {
          List<String> others = replicas.stream().filter(r -> r != victim).map(r -> r.host).toList();
          faults.schedule(() -> {
            link.cut(victim.host, others);
            return null;
          }, (long) (s.cutAt() * 1000), TimeUnit.MILLISECONDS);
          faults.schedule(() -> {
            link.heal();
            return null;
          }, (long) ((s.cutAt() + s.cutFor()) * 1000), TimeUnit.MILLISECONDS);
        }
        RunResult r = new OpenLoopRun("127.0.0.1", front.port(), chat, s.rate(), s.duration(), s.seed(), 4096, 120)
            .run(x -> {});
        double seconds = s.duration();
        PoolStats after = PoolStats.of(pods);
        long jitCpu = jit(replicas) - jitBefore; // a restarted replica's compiler counts from its start: a bound
        long replicaCpu = cpu(replicas) - replicasBefore - Math.max(0, jitCpu);
        long selfCpu = ProcessCpu.selfMillis() - selfBefore;
        long prompt = after.promptTokens() - before.promptTokens();
        double hits = prompt == 0 ? 0 : 100.0 * (after.cachedPromptTokens() - before.cachedPromptTokens()) / prompt;
        return String.format(Locale.ROOT, "| %d | %s | %.1f | %d | %.0f / %.0f | %.0f %% | %.0f | %.1f | %.0f | %.0f "
            + "| %s |", n, policy, r.throughput(), r.errors(), r.ttftMs(50), r.ttftMs(90), hits, idleEach,
            (double) replicaCpu / Math.max(1, r.ok()), jitCpu / seconds, selfCpu / seconds, String.join(" ", windows));
      }
    } finally {
      faults.shutdownNow();
      link.heal();
      for (ReplicaProcess r : replicas) {
        r.stop();
      }
    }
  }

  private static List<String> peersOf(ReplicaProcess self, List<ReplicaProcess> all) {
    return all.stream().filter(r -> r != self).map(ReplicaProcess::peerAddress).toList();
  }

  private static long jit(List<ReplicaProcess> replicas) {
    return replicas.stream().mapToLong(ReplicaProcess::jitMillis).sum();
  }

  private static long cpu(List<ReplicaProcess> replicas) {
    return replicas.stream().mapToLong(ReplicaProcess::cpuMillis).sum();
  }

  /** Waits (60 s at most) until every replica is ready and hears every other. */
  private static void awaitFleet(List<ReplicaProcess> replicas) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (ReplicaProcess r : replicas) {
      while (r.metric("llmgw_ready") != 1 || replicas.size() > 1 && r.metric("llmgw_peer_unreachable") != 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("replica " + r.host + " not ready and hearing its peers within 60 s");
        }
        Thread.sleep(100); // polling a condition with a deadline
      }
    }
  }
}
