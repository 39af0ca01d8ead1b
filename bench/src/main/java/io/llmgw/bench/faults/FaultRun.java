package io.llmgw.bench.faults;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.FailureMode;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One fault at a time under steady load through the dev proxy (issue 15's fault run): four simulated pods behind
 * switchable gates, two EPP replicas in JVMs of their own, half the clients streaming. Each row: 2 s steady, the fault
 * for 5 s, healed, 3 s more; what was sent, what failed (by status, split non-streaming/streaming), what of that a
 * gateway could have retried (nothing of the response had reached the client), when the last failing request started
 * after the fault, and whether the last second ran clean. Usage: [concurrency].
 */
public final class FaultRun {
  private static final Duration DRAIN = Duration.ofMillis(1500);

  private final Path dir;
  private final Path config;
  private final List<FaultGate> gates = new ArrayList<>();
  private final int[] eppPorts = {LoopbackPorts.free(), LoopbackPorts.free()};
  private final Process[] epps = new Process[2];
  private final int concurrency;
  private final Vertx vertx = Vertx.vertx();
  private int starts;

  private FaultRun(Path dir, int concurrency) throws Exception {
    this.dir = dir;
    this.config = dir.resolve("pool.yaml");
    this.concurrency = concurrency;
  }

  public static void main(String[] args) throws Exception {
    int concurrency = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    FaultRun run = new FaultRun(Files.createTempDirectory("llmgw-faults"), concurrency);
    System.out.print(run.all());
    System.out.println("EPP logs: " + run.dir);
    System.exit(0);
  }

  private String all() throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).loras(1, 1).decode(15, 0.2).seed(3).build();
    List<String> simIps = List.of("127.0.0.71", "127.0.0.72", "127.0.0.73", "127.0.0.74");
    try (SimPods pods = SimPods.start(sim, simIps, 8100)) {
      List<String> gateAddresses = new ArrayList<>();
      for (int i = 0; i < simIps.size(); i++) {
        FaultGate g = new FaultGate(vertx, "127.0.0.8" + (i + 1), 8000, simIps.get(i), 8100);
        gates.add(g);
        gateAddresses.add(g.address());
      }
      String yaml = FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
          + FileModeYaml.route("base", "sim-pool", SimConfig.DEFAULT_MODEL, 0) + FileModeYaml.SEPARATOR
          // the simulator fails every load of a source that says "fail"
          + FileModeYaml.loadableRoute("broken", "sim-pool", "broken-lora", "broken-lora-v1", "hf://org/broken-fail")
          + FileModeYaml.pods("gate", "sim", gateAddresses);
      Files.writeString(config, yaml);
      for (int i = 0; i < 2; i++) {
        epps[i] = startEpp(i);
      }
      List<String> replicas = List.of("127.0.0.1:" + eppPorts[0], "127.0.0.1:" + eppPorts[1]);
      ProxySettings base = ProxySettings.defaults().withListener("127.0.0.1", 0).withEpps(replicas);
      StringBuilder t = new StringBuilder("| fault (5 s, one at a time) | sent | non-streaming failed | streaming "
          + "failed | failed that could have been retried | last failing request started | came back |\n"
          + "|---|---:|---|---|---:|---:|---|\n");
      try (DevProxy closed = DevProxy.start(base);
          DevProxy open = DevProxy.start(base.withFailure(FailureMode.openFor(List.of("/v1/"), gateAddresses)))) {
        FaultGate victim = gates.getFirst();
        t.append(row("none (baseline)", closed, () -> {}, () -> {}));
        t.append(row("pod SIGKILL (port closed, connections dropped)", closed, () -> victim.set(FaultGate.Mode.DEAD),
            () -> victim.set(FaultGate.Mode.PASS)));
        t.append(row("pod hang (takes requests, never answers)", closed, () -> victim.set(FaultGate.Mode.HANG),
            () -> victim.set(FaultGate.Mode.PASS)));
        t.append(row("pod answers garbage", closed, () -> victim.set(FaultGate.Mode.GARBAGE),
            () -> victim.set(FaultGate.Mode.PASS)));
        t.append(row("pod's metrics endpoint down (503)", closed, () -> victim.set(FaultGate.Mode.METRICS_DOWN),
            () -> victim.set(FaultGate.Mode.PASS)));
        SteadyLoad[] broken = new SteadyLoad[1];
        String adapterRow = row("adapter loads fail on every pod (4 more clients ask for it)", closed,
            () -> broken[0] = new SteadyLoad(closed.port(), "broken-lora", 4, 10_000), () -> broken[0].close());
        t.append(adapterRow.replace("(4 more clients ask for it)", "(4 more clients ask for it: "
            + answers(broken[0].results()) + ")"));
        t.append(row("config file corrupted", closed, () -> Files.writeString(config, "{{{ not: [yaml"),
            () -> Files.writeString(config, yaml)));
        t.append(row("EPP SIGTERM, restarted (rolling restart)", closed, () -> stopEpp(0, false),
            () -> epps[0] = startEpp(0)));
        t.append(row("EPP SIGKILL, restarted (fail-closed)", closed, () -> stopEpp(1, true),
            () -> epps[1] = startEpp(1)));
        t.append(row("EPP SIGKILL, restarted (fail-open, default endpoints)", open, () -> stopEpp(0, true),
            () -> epps[0] = startEpp(0)));
      } finally {
        for (Process p : epps) {
          if (p != null) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          }
        }
        for (FaultGate g : gates) {
          g.close();
        }
        vertx.close();
      }
      return t.toString();
    }
  }

  private Process startEpp(int i) throws Exception {
    return EppChild.start(config, eppPorts[i], DRAIN, Duration.ofSeconds(20),
        dir.resolve("epp-" + i + "-" + (++starts) + ".log"), List.of());
  }

  private void stopEpp(int i, boolean kill) throws InterruptedException {
    if (kill) {
      epps[i].destroyForcibly(); // SIGKILL
    } else {
      epps[i].destroy(); // SIGTERM: the EPP drains
    }
    epps[i].waitFor(60, TimeUnit.SECONDS);
  }

  interface Step {
    void run() throws Exception;
  }

  private String row(String name, DevProxy proxy, Step inject, Step heal) throws Exception {
    SteadyLoad load = new SteadyLoad(proxy.port(), SimConfig.DEFAULT_MODEL, concurrency, 200_000);
    try {
      Thread.sleep(2_000); // the run's phases are wall-clock by design: steady, fault, healed
      long faultAt = System.nanoTime();
      inject.run();
      Thread.sleep(5_000);
      heal.run();
      Thread.sleep(3_000);
      load.stop();
      List<SteadyLoad.Result> all = load.results();
      long lastSecond = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
      long lastFailStart = all.stream().filter(r -> r.outcome() != SteadyLoad.Outcome.OK && r.endNanos() > faultAt)
          .mapToLong(SteadyLoad.Result::startNanos).max().orElse(-1);
      boolean clean = all.stream().filter(r -> r.startNanos() > lastSecond - TimeUnit.SECONDS.toNanos(1))
          .allMatch(r -> r.outcome() == SteadyLoad.Outcome.OK);
      String line = String.format(Locale.ROOT, "| %s | %d | %s | %s | %d | %s | %s |%n", name, all.size(),
          failures(all, false), failures(all, true), all.stream().filter(SteadyLoad.Result::retriable).count(),
          lastFailStart < 0 ? "–" : String.format(Locale.ROOT, "%+.1f s", (lastFailStart - faultAt) / 1e9),
          clean ? "yes" : "no");
      System.out.print(line);
      System.out.flush();
      return line;
    } finally {
      load.close();
    }
  }

  /** What the clients of a side load got: "212 × 503". */
  private static String answers(List<SteadyLoad.Result> all) {
    Map<String, Integer> kinds = new TreeMap<>();
    all.forEach(r -> kinds.merge(r.outcome() == SteadyLoad.Outcome.OK ? "200" : r.status() == 0 ? r.outcome().name()
        : Integer.toString(r.status()), 1, Integer::sum));
    StringBuilder s = new StringBuilder();
    kinds.forEach((k, v) -> s.append(s.isEmpty() ? "" : ", ").append(v).append(" × ").append(k));
    return s.toString();
  }

  /** "0", or the count with its kinds: "3 (2 × 500, 1 cut)". */
  private static String failures(List<SteadyLoad.Result> all, boolean streaming) {
    Map<String, Integer> kinds = new TreeMap<>();
    for (SteadyLoad.Result r : all) {
      if (r.streaming() == streaming && r.outcome() != SteadyLoad.Outcome.OK) {
        String kind = switch (r.outcome()) {
          case REFUSED -> Integer.toString(r.status());
          case NO_ANSWER -> "no answer";
          default -> "cut";
        };
        kinds.merge(kind, 1, Integer::sum);
      }
    }
    int n = kinds.values().stream().mapToInt(Integer::intValue).sum();
    if (n == 0) {
      return "0";
    }
    StringBuilder s = new StringBuilder().append(n).append(" (");
    kinds.forEach((k, v) -> s.append(v).append(" × ").append(k).append(", "));
    s.setLength(s.length() - 2);
    return s.append(')').toString();
  }
}
