package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Model-less serving (issue 6's benchmark, after INFaaS): a small base model with a task adapter (accuracy 0.81, 0.2
 * per 1k tokens) on 2 fast pods, and a large model (accuracy 0.92, 1.5 per 1k tokens) on 2 slow ones. 70 % of requests
 * need accuracy 0.75 within 2 s to the first token, 30 % need 0.9 within 3 s. Served two ways: always the large model
 * (what a caller does who must name a model and cannot tell which requests need it), and one model-less route whose
 * variants the EPP picks per request. Reported: cost per 1,000 requests and the share of requests that met all their
 * requirements (served, accurate enough, first token in time). Usage: [rates, comma-separated] [seconds] [seed].
 */
public final class ModelLessRun {
  record Need(double minAccuracy, double maxLatencyMs) {}

  static final Map<String, Need> NEEDS = Map.of("summarize#basic", new Need(0.75, 2_000),
      "summarize#premium", new Need(0.9, 3_000));
  static final Map<String, Double> ACCURACY = Map.of("summarize-lora", 0.81, "large-base", 0.92);
  static final Map<String, Double> PRICE = Map.of("summarize-lora", 0.2, "large-base", 1.5);

  public static void main(String[] args) throws Exception {
    List<Double> rates = args.length > 0
        ? java.util.Arrays.stream(args[0].split(",")).map(Double::parseDouble).toList() : List.of(4.0, 8.0);
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 30;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    System.out.printf(Locale.ROOT, "%s requests/s for %.0f s each: 70 %% need accuracy 0.75 and TTFT 2 s, 30 %% need "
        + "0.9 and 3 s; small pool 2 pods (adapter resident), large pool 2 pods (3x slower decode)%n", rates, seconds);
    Path dir = Files.createTempDirectory("llmgw-modelless");
    StringBuilder table = new StringBuilder("| requests/s | serving | requests met (all) | basic met | premium met | "
        + "cost / 1,000 requests | large-model share | TTFT p99 ms |\n|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (double rate : rates) {
      for (String mode : List.of("always large", "model-less")) {
        table.append(String.format(Locale.ROOT, "| %.0f ", rate)).append(runOne(mode, rate, seconds, seed, dir));
      }
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  private static String runOne(String mode, double rate, double seconds, long seed, Path dir) throws Exception {
    SimConfig smallSim = SimConfig.builder().model("small-base").adapters(List.of("summarize-lora")).loras(1, 1)
        .capacity(8, 1024, SimConfig.defaults().numGpuBlocks()).decode(10, 0.5).seed(seed).build();
    SimConfig largeSim = SimConfig.builder().model("large-base")
        .capacity(8, 1024, SimConfig.defaults().numGpuBlocks()).decode(30, 1.5).prefill(30, 0.3).seed(seed + 1)
        .build();
    SimPods small = SimPods.start(smallSim, 2, "127.0.0.11", 8000);
    SimPods large = SimPods.start(largeSim, 2, "127.0.0.13", 8000);
    Path config = dir.resolve(mode.replace(' ', '-') + ".yaml");
    Files.writeString(config, config(small, large));
    boolean modelLess = mode.equals("model-less");
    Map<String, Map<String, String>> headers = Map.of(
        "summarize#basic", Map.of("x-llmgw-min-accuracy", "0.75", "x-llmgw-max-latency-ms", "2000"),
        "summarize#premium", Map.of("x-llmgw-min-accuracy", "0.9", "x-llmgw-max-latency-ms", "3000"),
        "large-base#basic", Map.of(), "large-base#premium", Map.of());
    List<String> classes = modelLess ? List.of("summarize#basic", "summarize#premium")
        : List.of("large-base#basic", "large-base#premium");
    Workload w = Workload.classes("model-less", classes, new double[] {0.7, 0.3}, headers, 16, 96);
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withPolicy(PolicyShorthand.SCORERS, 50);
    try (large; Rig rig = Rig.start(small, s, ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      Rig.awaitScraped(rig.epp(), large);
      System.out.printf("  %-13s ...", mode);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, seconds, seed, 4096, 120).run(n -> {});
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      int metAll = 0;
      int sentAll = 0;
      double cost = 0;
      int largeServed = 0;
      int okAll = 0;
      StringBuilder perClass = new StringBuilder();
      for (String c : classes) {
        ClassResult cr = r.byClass().get(c);
        Need need = NEEDS.get("summarize#" + c.substring(c.indexOf('#') + 1));
        int met = 0;
        for (ClassResult.Completed done : cr.completed()) {
          String variant = done.variant() != null ? done.variant() : Workload.modelOf(c);
          cost += PRICE.get(variant) * (done.promptTokens() + done.completionTokens()) / 1000.0;
          largeServed += variant.equals("large-base") ? 1 : 0;
          if (ACCURACY.get(variant) >= need.minAccuracy() && done.ttftMs() <= need.maxLatencyMs()) {
            met++;
          }
        }
        metAll += met;
        sentAll += cr.sent();
        okAll += cr.ok();
        perClass.append(String.format(Locale.ROOT, " %.1f %% |", 100.0 * met / cr.sent()));
      }
      return String.format(Locale.ROOT, "| %s | %.1f %% |%s %.1f | %.0f %% | %.0f |%n", mode, 100.0 * metAll / sentAll,
          perClass, 1000 * cost / sentAll, 100.0 * largeServed / Math.max(1, okAll), r.ttftMs(99));
    }
  }

  static String config(SimPods small, SimPods large) {
    StringBuilder yaml = new StringBuilder(FileModeYaml.pool("small-pool", "small", 8000))
        .append(FileModeYaml.SEPARATOR).append(FileModeYaml.pool("large-pool", "large", 8000))
        .append(FileModeYaml.SEPARATOR).append("""
            apiVersion: inference.x-k8s.io/v1alpha1
            kind: LLMRoute
            metadata: {name: summarize}
            spec:
              backendRefs: [{name: small-pool}, {name: large-pool}]
              adapter:
                name: summarize
                variants:
                  - {name: summarize-lora, pool: small-pool, accuracy: 0.81, costPer1kTokens: 0.2}
                  - {name: large-base, pool: large-pool, accuracy: 0.92, costPer1kTokens: 1.5}
            """).append(FileModeYaml.SEPARATOR)
        .append(FileModeYaml.route("large", "large-pool", "large-base", 0));
    return yaml.append(FileModeYaml.pods("small", "small", small.podAddresses()))
        .append(FileModeYaml.pods("large", "large", large.podAddresses())).toString();
  }
}
