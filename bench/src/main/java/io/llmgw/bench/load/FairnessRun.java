package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.loadgen.ClassResult;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fairness within a priority band (issue 6's benchmark): two routes at one priority on 4 simulated pods, one sending 10×
 * the other, together 1.5× the pool's capacity, with flow control's TTL at 10 s so the backlog costs requests. Round-robin
 * across flows against strict (the band's oldest first). Each flow's fair share is max-min over what was served: the
 * quiet flow's whole demand, the loud flow the rest; Jain's index is over served / fair share. Usage: [rate] [seconds]
 * [seed].
 */
public final class FairnessRun {
  public static void main(String[] args) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of("loud-lora", "quiet-lora")).loras(2, 2)
        .capacity(PriorityRun.SEQS, 1024, SimConfig.defaults().numGpuBlocks()).decode(20, 1.0).seed(1).build();
    double capacity = PriorityRun.capacity(sim, 56);
    double rate = args.length > 0 ? Double.parseDouble(args[0]) : 1.5 * capacity;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 40;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    System.out.printf(Locale.ROOT, "%d pods, capacity ≈ %.1f/s; offered %.1f/s for %.0f s, loud:quiet = 10:1, both "
        + "priority 0, TTL 10 s%n", PriorityRun.PODS, capacity, rate, seconds);
    Workload w = Workload.classes("fairness", List.of("loud-lora", "quiet-lora"), new double[] {10, 1}, Map.of(), 16,
        96);
    Path dir = Files.createTempDirectory("llmgw-fairness");
    StringBuilder table = new StringBuilder("| fairness | quiet served | quiet TTFT p50 / p99 ms | loud served "
        + "| loud TTFT p50 / p99 ms | expired (503) | Jain's index |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (FlowSettings.Fairness f : List.of(FlowSettings.Fairness.ROUND_ROBIN, FlowSettings.Fairness.STRICT)) {
      table.append(runOne(f, sim, w, rate, seconds, seed, dir));
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  private static String runOne(FlowSettings.Fairness fairness, SimConfig sim, Workload w, double rate, double seconds,
      long seed, Path dir) throws Exception {
    SimPods pods = SimPods.start(sim, PriorityRun.PODS, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("sim-pool", "sim", 8000))
        .append(FileModeYaml.SEPARATOR).append(FileModeYaml.route("loud", "sim-pool", "loud-lora", 0))
        .append(FileModeYaml.SEPARATOR).append(FileModeYaml.route("quiet", "sim-pool", "quiet-lora", 0));
    yaml.append(FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    Files.writeString(config, yaml);
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withPolicy(PolicyShorthand.SCORERS, 50);
    FlowSettings flow = s.flow().with(fairness, FlowSettings.Ordering.FCFS)
        .withLimits(Duration.ofSeconds(10), 10_000, 1L << 30, 5_000, 512L << 20);
    s = s.withFlow(flow, s.saturation());
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      System.out.printf("  %-12s ...", fairness);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, seed, 4096, 120).run(n -> {});
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      ClassResult quiet = r.byClass().get("quiet-lora");
      ClassResult loud = r.byClass().get("loud-lora");
      // max-min fair shares of what was served: the quiet flow's whole demand (it asks for less than half), the loud
      // flow the rest; Jain's index over each flow's served / fair share (1.0: each got exactly its share)
      double quietFair = Math.min(quiet.sent(), r.ok() / 2.0);
      double loudFair = Math.max(r.ok() - quietFair, 1e-9);
      double xq = quiet.ok() / quietFair;
      double xl = loud.ok() / loudFair;
      double jain = (xq + xl) * (xq + xl) / (2 * (xq * xq + xl * xl));
      return String.format(Locale.ROOT, "| %s | %d/%d (%.0f %%) | %.0f / %.0f | %d/%d (%.0f %%) | %.0f / %.0f | %d | "
          + "%.3f |%n", fairness == FlowSettings.Fairness.STRICT ? "strict" : "round-robin", quiet.ok(), quiet.sent(),
          100.0 * quiet.ok() / quiet.sent(), quiet.ttftMs(50), quiet.ttftMs(99), loud.ok(), loud.sent(),
          100.0 * loud.ok() / loud.sent(), loud.ttftMs(50), loud.ttftMs(99),
          quiet.count("503") + loud.count("503"), jain);
    }
  }
}
