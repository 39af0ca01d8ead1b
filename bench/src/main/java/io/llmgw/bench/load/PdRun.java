package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.ProfileSpec;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimProfile;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prefill/decode disaggregation against aggregated serving (issue 30's benchmark), four simulated pods on the calibrated
 * {@code llama-3.1-8b-h100} profile: all four serving whole requests under the {@code scorers} policy, or one prefill
 * pod and three decode pods under llm-d's two profiles, splitting by llm-d's rule (every prompt over 256 uncached
 * tokens) or by cost (the default {@code pd-profile-handler}). Two workloads: long prompts (about 3,000 tokens, few
 * repeats, 32–96 output tokens) and multi-turn chat (each turn resends the conversation, so most of a prompt is cached
 * where the conversation ran). Reported per seed and as means: TTFT and time per output token (p50, p90), requests
 * served, and the share the EPP split. Usage: [seconds] [seeds, comma-separated] [long-prompt rate] [chat rate]
 * [the cost rule's parameters, e.g. stallWeight=0.25,splitOverhead=512] [modes, comma-separated].
 */
public final class PdRun {
  static final String MODEL = SimConfig.DEFAULT_MODEL;
  static final List<String> MODES = List.of("aggregated", "split by length", "split by cost");
  static final Map<String, Object> COST_PARAMS = new java.util.LinkedHashMap<>();

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 20;
    List<Long> seeds = args.length > 1
        ? java.util.Arrays.stream(args[1].split(",")).map(Long::parseLong).toList() : List.of(1L, 2L, 3L);
    double longRate = args.length > 2 ? Double.parseDouble(args[2]) : 8;
    double chatRate = args.length > 3 ? Double.parseDouble(args[3]) : 8;
    // the cost rule's parameters beyond the defaults, e.g. stallWeight=0.25,splitOverhead=512
    Map<String, Object> costParams = new java.util.LinkedHashMap<>();
    if (args.length > 4) {
      for (String kv : args[4].split(",")) {
        String[] p = kv.split("=", 2);
        costParams.put(p[0], p[1].contains(".") ? (Object) Double.parseDouble(p[1]) : (Object) Integer.parseInt(p[1]));
      }
    }
    COST_PARAMS.putAll(costParams);
    Workload longPrompt = new Workload("long-prompt", List.of(MODEL), new double[] {1.0}, 2_000, 3_000, 16, 64, 32,
        96, Map.of(), 0, 0);
    Workload chat = Workload.chat(MODEL);
    System.out.printf(Locale.ROOT,
        "4 pods on profile llama-3.1-8b-h100, %.0f s a run, seeds %s; long prompts at %.1f/s,"
            + " chat at %.1f/s%n",
        seconds, seeds, longRate, chatRate);
    Path dir = Files.createTempDirectory("llmgw-pd");
    StringBuilder rows = new StringBuilder("| workload | serving | seed | TTFT p50 ms | TTFT p90 ms | TPOT p50 ms | "
        + "TPOT p90 ms | ok / sent | split |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    StringBuilder means = new StringBuilder("| workload | serving | TTFT p50 ms | TTFT p90 ms | TPOT p50 ms | "
        + "TPOT p90 ms | split |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (Workload w : List.of(longPrompt, chat)) {
      double rate = w == chat ? chatRate : longRate;
      for (String mode : args.length > 5 ? List.of(args[5].split(",")) : MODES) {
        double[] sum = new double[5];
        for (long seed : seeds) {
          double[] r = runOne(w, mode, rate, seconds, seed, dir, rows);
          for (int i = 0; i < sum.length; i++) {
            sum[i] += r[i] / seeds.size();
          }
        }
        means.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.1f | %.1f | %.0f %% |%n", w.name(), mode,
            sum[0], sum[1], sum[2], sum[3], 100 * sum[4]));
      }
    }
    System.out.println();
    System.out.print(rows);
    System.out.println();
    System.out.print(means);
    System.exit(0);
  }

  /** One run: TTFT p50, p90, TPOT p50, p90, split share; its row goes to {@code rows}. */
  private static double[] runOne(Workload w, String mode, double rate, double seconds, long seed, Path dir,
      StringBuilder rows) throws Exception {
    boolean aggregated = mode.equals("aggregated");
    SimConfig.Builder base = SimProfile.load("llama-3.1-8b-h100").applyTo(SimConfig.builder()).seed(seed);
    SimPods first = SimPods.start(base.role(aggregated ? SimConfig.Role.BOTH : SimConfig.Role.PREFILL).build(),
        1, "127.0.0.11", 8000);
    SimPods rest = SimPods.start(base.role(aggregated ? SimConfig.Role.BOTH : SimConfig.Role.DECODE).build(), 3,
        "127.0.0.12", 8000);
    Path config = dir.resolve(mode.replace(' ', '-') + "-" + seed + ".yaml");
    Files.writeString(config, config(first, rest, aggregated));
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts();
    s = aggregated ? s.withPolicy(PolicyShorthand.SCORERS, 50) : s.withScheduling(disaggregated(mode));
    try (rest; Rig rig = Rig.start(first, s, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      Rig.awaitScraped(rig.epp(), rest);
      System.out.printf(Locale.ROOT, "  %-11s %-15s seed %d ...", w.name(), mode, seed);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, seed, 4096, 120).run(n -> {});
      String metrics = EppMetricsText.scrape(rig.epp());
      double split = EppMetricsText.value(metrics, "llmgw_disaggregation_decisions_total{decision=\"split\"}");
      double decided = split;
      for (String d : List.of("short", "prefill_busy", "no_prefill_pod")) {
        decided += EppMetricsText.value(metrics, "llmgw_disaggregation_decisions_total{decision=\"" + d + "\"}");
      }
      double share = decided == 0 ? 0 : split / decided;
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      rows.append(String.format(Locale.ROOT, "| %s | %s | %d | %.0f | %.0f | %.1f | %.1f | %d / %d | %.0f %% |%n",
          w.name(), mode, seed, r.ttftMs(50), r.ttftMs(90), r.tpotMs(50), r.tpotMs(90), r.ok(), r.sent(), 100 * share));
      return new double[] {r.ttftMs(50), r.ttftMs(90), r.tpotMs(50), r.tpotMs(90), share};
    }
  }

  /** llm-d's two profiles over the same scorers as the aggregated {@code scorers} policy. */
  static SchedulingConfig disaggregated(String mode) {
    List<PluginSpec> plugins = List.of(spec("prefill-filter"), spec("decode-filter"), spec("prefix-cache-scorer"),
        spec("queue-scorer"), spec("kv-cache-utilization-scorer"), spec("token-load-scorer"),
        spec("max-score-picker"), new PluginSpec("pd-profile-handler", "pd-profile-handler", handler(mode)));
    ProfileSpec prefill = new ProfileSpec("prefill", List.of(ProfileSpec.Ref.to("prefill-filter"),
        ProfileSpec.Ref.to("prefix-cache-scorer", 3), ProfileSpec.Ref.to("token-load-scorer", 2),
        ProfileSpec.Ref.to("max-score-picker")));
    ProfileSpec decode = new ProfileSpec("decode", List.of(ProfileSpec.Ref.to("decode-filter"),
        ProfileSpec.Ref.to("prefix-cache-scorer", 3), ProfileSpec.Ref.to("queue-scorer", 2),
        ProfileSpec.Ref.to("kv-cache-utilization-scorer", 2), ProfileSpec.Ref.to("max-score-picker")));
    return new SchedulingConfig("pd-run " + mode, plugins, List.of(prefill, decode));
  }

  private static Map<String, Object> handler(String mode) {
    Map<String, Object> p = new java.util.LinkedHashMap<>(Map.of("threshold", 256, "costAware",
        mode.equals("split by cost")));
    if (mode.equals("split by cost")) {
      p.putAll(COST_PARAMS);
    }
    return p;
  }

  private static PluginSpec spec(String type) {
    return new PluginSpec(type, type, Map.of());
  }

  static String config(SimPods first, SimPods rest, boolean aggregated) {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("pool", "sim", 8000)).append(FileModeYaml.SEPARATOR)
        .append(FileModeYaml.route("base", "pool", MODEL, 0));
    List<String> addresses = new ArrayList<>(first.podAddresses());
    addresses.addAll(rest.podAddresses());
    for (int i = 0; i < addresses.size(); i++) {
      String role = aggregated ? null : i == 0 ? "prefill" : "decode";
      yaml.append(FileModeYaml.SEPARATOR)
          .append(FileModeYaml.pod("pod-" + i, "sim", addresses.get(i).split(":")[0], role));
    }
    return yaml.toString();
  }
}
