package io.llmgw.bench.load;

import io.llmgw.adapters.AdapterSettings;
import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Adapter paging under load (issue 5's benchmark): one open-loop trace served three ways on 8 simulated pods
 * (max-loras 4, max-cpu-loras 32, 300 ms per runtime load): every adapter registered on every pod from the start (the
 * all-resident ideal); loaded just in time with one copy each, pinned to the emptiest pod at first use and never moved
 * or evicted (static placement, as AIBrix does); and loaded just in time with 32 per pod, LRU eviction of idle
 * adapters and copy scaling (ours). Misses are requests that found their adapter resident nowhere and waited for a
 * load; Belady's MIN is computed offline on the same trace for the pool's 8 × 32 slots.
 * Usage: [workload multi-lora|zipf] [rate] [seconds] [seed].
 */
public final class PagingRun {
  static final int PODS = 8;
  static final int CPU_LORAS = 32;

  public static void main(String[] args) throws Exception {
    String name = args.length > 0 ? args[0] : "multi-lora";
    double rate = args.length > 1 ? Double.parseDouble(args[1]) : 20;
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 30;
    long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
    Workload w = name.equals("zipf") ? Workload.zipf(1000, 1.0) : Workload.multiLora();
    List<String> trace = OpenLoopRun.trace(w, rate, seconds, seed);
    int min = Belady.misses(trace, PODS * CPU_LORAS);
    System.out.printf(Locale.ROOT, "workload %s, %d requests at %.0f/s, %d distinct adapters; Belady's MIN for %d "
        + "slots: %d misses (%.1f per 1,000)%n", w.name(), trace.size(), rate, trace.stream().distinct().count(),
        PODS * CPU_LORAS, min, 1000.0 * min / trace.size());
    Path dir = Files.createTempDirectory("llmgw-paging");
    StringBuilder table = new StringBuilder("| mode | ok | misses / 1,000 | × MIN | TTFT p50 ms | TTFT p99 ms | "
        + "loads | unloads | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String mode : List.of("all-resident", "static", "just-in-time")) {
      table.append(runOne(mode, w, rate, seconds, seed, trace.size(), min, dir));
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  private static String runOne(String mode, Workload w, double rate, double seconds, long seed, int requests, int min,
      Path dir) throws Exception {
    boolean resident = mode.equals("all-resident");
    SimConfig sim = SimConfig.builder().adapters(resident ? w.models() : List.of()).loras(4, CPU_LORAS)
        .loraLatency(300, 20).capacity(16, 1024, SimConfig.defaults().numGpuBlocks()).decode(20, 1.0).seed(seed)
        .build();
    SimPods pods = SimPods.start(sim, PODS, "127.0.0.11", 8000);
    Path config = dir.resolve(mode + ".yaml");
    if (resident) {
      Rig.writeConfig(config, pods, w.models());
    } else {
      Files.writeString(config, loadableConfig(pods, w.models()));
    }
    AdapterSettings adapters = mode.equals("static")
        ? AdapterSettings.defaults().withCapacityPerPod(1_000_000).withCopyScaling(false)
        : AdapterSettings.defaults().withCapacityPerPod(CPU_LORAS);
    EppSettings settings = EppSettings.defaults(config).onLoopbackEphemeralPorts().withAdapters(adapters);
    try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      System.out.printf("  %-13s ...", mode);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, seed, 4096, 120).run(n -> {});
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      String metrics = EppMetricsText.scrape(rig.epp());
      double misses = EppMetricsText.value(metrics, "llmgw_adapter_cache_misses_total");
      return String.format(Locale.ROOT, "| %s | %d/%d | %.1f | %s | %.0f | %.0f | %.0f | %.0f | %d |%n", mode, r.ok(),
          r.sent(), 1000 * misses / requests, resident ? "–" : String.format(Locale.ROOT, "%.2f", misses / min),
          r.ttftMs(50), r.ttftMs(99), EppMetricsText.value(metrics, "llmgw_adapter_loads_total{result=\"ok\"}"),
          EppMetricsText.value(metrics, "llmgw_adapter_unloads_total"), r.errors());
    }
  }

  /** One pool, and a route per adapter whose only target is the adapter itself, loadable from a source. */
  static String loadableConfig(SimPods pods, List<String> adapters) {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("sim-pool", "sim", 8000));
    for (int i = 0; i < adapters.size(); i++) {
      String a = adapters.get(i);
      yaml.append(FileModeYaml.SEPARATOR)
          .append(FileModeYaml.loadableRoute("route-" + i, "sim-pool", a, a, "hf://bench/" + a));
    }
    yaml.append(FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    return yaml.toString();
  }
}
