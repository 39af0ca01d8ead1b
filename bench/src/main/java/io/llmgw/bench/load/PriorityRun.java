package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.ClassResult;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.SaturationSettings;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Priorities under overload (issue 6's benchmark): an interactive route (priority 100, TimeToFirstToken 2 s at p99)
 * and a batch-like route share 4 simulated pods at 1.5× their capacity, half the traffic each. Three ways: no admission
 * control (both routes priority 0, flow control off: everything goes straight to the pods), shedding only (the batch
 * route sheddable, flow control off: the admission check alone), and flow control (sheddable batch, interactive
 * requests wait in the EPP while the pool is saturated), and flow control with pods' queues kept at 2 instead of 5
 * ({@code --saturation-queue-limit 2}), so that the EPP's priority order, not the pods' first-come-first-served
 * queues, decides who starts first. All with the GIE scorers, which spread by queue (the seed policy packs each adapter
 * onto few pods, by design). Usage: [rate] [seconds] [seed]; the default rate is 1.5× the pool's capacity as the
 * simulator's latency model gives it.
 */
public final class PriorityRun {
  static final int PODS = 4;
  static final int SEQS = 8;
  static final double TTFT_OBJECTIVE_MS = 2_000;

  public static void main(String[] args) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of("chat-lora", "batch-lora")).loras(2, 2)
        .capacity(SEQS, 1024, SimConfig.defaults().numGpuBlocks()).decode(20, 1.0).seed(1).build();
    double capacity = capacity(sim, 56);
    double rate = args.length > 0 ? Double.parseDouble(args[0]) : 1.5 * capacity;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 30;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    System.out.printf(Locale.ROOT, "%d pods × %d sequences, capacity ≈ %.1f requests/s; offered %.1f/s (%.1f×) for "
        + "%.0f s, half interactive (priority 100, TTFT ≤ 2 s at p99), half batch%n", PODS, SEQS, capacity, rate,
        rate / capacity, seconds);
    Workload w = Workload.classes("priority", List.of("chat-lora", "batch-lora"), new double[] {0.5, 0.5}, Map.of(),
        16, 96);
    Path dir = Files.createTempDirectory("llmgw-priority");
    StringBuilder table = new StringBuilder("| mode | interactive ok | interactive TTFT p50 / p99 ms "
        + "| within 2 s (client) | attainment (EPP) | batch ok | batch 429 | batch TTFT p99 ms | done/s |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String mode : List.of("no admission control", "shedding only", "flow control",
        "flow control, queue limit 2")) {
      table.append(runOne(mode, sim, w, rate, seconds, seed, dir));
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  /**
   * Requests per second the pool completes when every pod runs a full batch: a request needs its output tokens' decode
   * steps (decodeBase + perSeq × seqs each), and every admission's prefill (~200 prompt tokens) stalls the whole batch
   * for one step. The no-admission-control run measures the same figure as its done/s.
   */
  static double capacity(SimConfig sim, int meanOutputTokens) {
    double stepMs = sim.decodeBaseMs() + sim.decodePerSeqMs() * sim.maxNumSeqs();
    double prefillMs = sim.prefillOverheadMs() + sim.prefillPerTokenMs() * 200;
    double batchMs = meanOutputTokens * stepMs + sim.maxNumSeqs() * prefillMs;
    return PODS * sim.maxNumSeqs() * 1000 / batchMs;
  }

  private static String runOne(String mode, SimConfig sim, Workload w, double rate, double seconds, long seed,
      Path dir) throws Exception {
    SimPods pods = SimPods.start(sim, PODS, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, config(pods, mode.equals("no admission control") ? 0 : -10));
    // the GIE scorers spread by queue; the seed policy would pack each adapter onto few pods, by design
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withPolicy(PolicyShorthand.SCORERS, 50);
    if (!mode.startsWith("flow control")) {
      s = s.withFlow(s.flow().disabled(), s.saturation());
    } else if (mode.endsWith("queue limit 2")) {
      s = s.withFlow(s.flow(), new SaturationSettings(2, 0.8, s.saturation().staleAfter()));
    }
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      System.out.printf("  %-28s ...", mode);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, seed, 4096, 180).run(n -> {});
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      double attained = EppMetricsText.value(EppMetricsText.scrape(rig.epp()),
          "llmgw_objective_attainment_ratio{objective=\"TimeToFirstToken\",route=\"default/interactive\"}");
      ClassResult chat = r.byClass().get("chat-lora");
      ClassResult batch = r.byClass().get("batch-lora");
      long within = chat.completed().stream().filter(c -> c.ttftMs() <= TTFT_OBJECTIVE_MS).count();
      return String.format(Locale.ROOT, "| %s | %d/%d | %.0f / %.0f | %.1f %% | %.1f %% | %d/%d | %d | %.0f | %.1f |%n",
          mode, chat.ok(), chat.sent(), chat.ttftMs(50), chat.ttftMs(99), 100.0 * within / chat.sent(),
          100 * attained, batch.ok(),
          batch.sent(), batch.count("429"), batch.ttftMs(99), r.throughput());
    }
  }

  static String config(SimPods pods, int batchPriority) {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("sim-pool", "sim", 8000)).append(FileModeYaml.SEPARATOR)
        .append("""
            apiVersion: inference.x-k8s.io/v1alpha1
            kind: LLMRoute
            metadata: {name: interactive}
            spec:
              backendRefs: [{name: sim-pool}]
              adapter:
                name: chat-lora
                priority: 100
                objectives: [{type: TimeToFirstToken, latency: {value: 2s, quantile: {numerator: 99}}}]
            """).append(FileModeYaml.SEPARATOR)
        .append(FileModeYaml.route("batch", "sim-pool", "batch-lora", batchPriority));
    yaml.append(FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    return yaml.toString();
  }
}
