package io.llmgw.bench.capacity;

import io.llmgw.bench.ProcessCpu;
import io.llmgw.bench.load.EppMetricsText;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.capacity.controller.CapacitySettings;
import io.llmgw.extproc.objectives.controller.ObjectiveSettings;
import io.llmgw.loadgen.ClassResult;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.sim.engine.SimConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Issue 52's bench: capacity that follows a day of load, priced. Two pools of simulated vLLM pods — {@code small} (a
 * small model with a task adapter, 1 per pod-hour) and {@code large} (3× slower decode, 4 per pod-hour) — serve three
 * routes: {@code chat} on small (first token within 1 s at p99), {@code reason} on large (3 s), and the model-less
 * {@code summarize} (its adapter on small, or the large model; accuracy 0.75 and a first token within 2 s asked, so
 * it wants small and spills to large when small has no room). A compressed day (a fifth of the peak at night, ×5 at
 * midday, three bursts of ×1.5) is replayed on the same seed against three ways of sizing the pools: the capacity
 * plan, the saturation gauge with an HPA's scale-down stabilisation, and a fixed count for the peak (the plan's peak
 * per pool, the gauge's when the plan is not run). The bench is the cluster ({@link SimCluster}): pods start after the pool's load time
 * and cost from when they were asked for. Usage: [seconds per day] [peak requests/s] [seed] [arms].
 */
public final class CapacityRun {
  static final double LOAD_SECONDS = 5;
  static final double HYSTERESIS_SECONDS = 10;
  static final int PORT = 8000;
  static final Map<String, Double> TTFT_LIMIT_MS = Map.of("small-base#chat", 1_000.0, "summarize#basic", 2_000.0,
      "large-base#reason", 3_000.0);

  record Arm(String name, double cost, int sent, int within, int tooMany, int unavailable, int otherErrors,
      double flowWaits, double waitsOverOneSecond, double maxWaitSeconds, Map<String, Integer> peaks,
      Map<String, Double> meanPods, double cpuMsPerRequest) {}

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 300;
    double peak = args.length > 1 ? Double.parseDouble(args[1]) : 20;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    List<String> arms = List.of((args.length > 3 ? args[3] : "planner,gauge,static").split(","));
    DayCurve day = new DayCurve(seconds);
    System.out.printf(Locale.ROOT, "a day in %.0f s: peak %.1f requests/s (night %.1f, bursts %.1f), mean %.2f; "
        + "load time %.0f s, hysteresis %.0f s; seed %d%n", seconds, peak, peak * DayCurve.TROUGH,
        peak * DayCurve.BURST, peak * day.mean(), LOAD_SECONDS, HYSTERESIS_SECONDS, seed);
    List<Arm> done = new ArrayList<>();
    Map<String, Integer> peaks = new HashMap<>(Map.of("small-pool", 1, "large-pool", 1));
    for (String arm : arms) {
      Scaler scaler = switch (arm) {
        case "planner" -> new Scaler.Planner();
        case "gauge" -> new Scaler.SaturationGauge(LOAD_SECONDS + HYSTERESIS_SECONDS, 5);
        case "static" -> new Scaler.Fixed(Map.copyOf(peaks));
        default -> throw new IllegalArgumentException("arms are planner, gauge and static, not " + arm);
      };
      Map<String, Integer> start = arm.equals("static") ? Map.copyOf(peaks) : Map.of("small-pool", 1, "large-pool", 1);
      Arm a = runArm(arm, scaler, start, day, peak, seed);
      if (arm.equals("planner") || !arms.contains("planner")) { // the peak as the plan found it enough
        a.peaks().forEach((pool, n) -> peaks.merge(pool, n, Math::max));
      }
      done.add(a);
      System.out.println(row(a));
    }
    System.out.println();
    System.out.println("| arm | cost (pod-hours × price) | vs static | requests | within objective | 429 | 503 | "
        + "other errors | waited in flow control | of which > 1 s | longest wait ≤ | peak pods small / large | "
        + "mean pods small / large | process CPU ms / request (every part) |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    double staticCost = done.stream().filter(a -> a.name().equals("static")).mapToDouble(Arm::cost).findFirst()
        .orElse(Double.NaN);
    for (Arm a : done) {
      System.out.println(row(a).replace("| vs |", String.format(Locale.ROOT, "| %.0f %% |",
          100 * a.cost() / staticCost)));
    }
    System.exit(0);
  }

  static String row(Arm a) {
    return String.format(Locale.ROOT,
        "| %s | %.3f | vs | %d | %.1f %% | %d | %d | %d | %.0f | %.0f | %.1f s | %d / %d | "
            + "%.2f / %.2f | %.2f |",
        a.name(), a.cost(), a.sent(), 100.0 * a.within() / a.sent(), a.tooMany(),
        a.unavailable(), a.otherErrors(), a.flowWaits(), a.waitsOverOneSecond(), a.maxWaitSeconds(),
        a.peaks().get("small-pool"), a.peaks().get("large-pool"), a.meanPods().get("small-pool"),
        a.meanPods().get("large-pool"), a.cpuMsPerRequest());
  }

  static List<SimCluster.PoolSpec> pools(long seed) {
    SimConfig small = SimConfig.builder().model("small-base").adapters(List.of("summarize-lora")).loras(1, 1)
        .capacity(8, 1024, SimConfig.defaults().numGpuBlocks()).decode(10, 0.5).seed(seed).build();
    SimConfig large = SimConfig.builder().model("large-base").capacity(8, 1024, SimConfig.defaults().numGpuBlocks())
        .decode(30, 1.5).prefill(30, 0.3).seed(seed + 1).build();
    return List.of(new SimCluster.PoolSpec("small-pool", "small", small, 1.0, LOAD_SECONDS, 11, 20),
        new SimCluster.PoolSpec("large-pool", "large", large, 4.0, LOAD_SECONDS, 41, 20));
  }

  static String baseYaml() {
    return """
        apiVersion: inference.networking.k8s.io/v1
        kind: InferencePool
        metadata:
          name: small-pool
          annotations: {llmgw.io/cost-per-pod-hour: "1", llmgw.io/pod-load-time: 5s, llmgw.io/max-replicas: "20",
            llmgw.io/max-batch: "8"}
        spec: {selector: {matchLabels: {app: small}}, targetPorts: [{number: 8000}]}
        ---
        apiVersion: inference.networking.k8s.io/v1
        kind: InferencePool
        metadata:
          name: large-pool
          annotations: {llmgw.io/cost-per-pod-hour: "4", llmgw.io/pod-load-time: 5s, llmgw.io/max-replicas: "20",
            llmgw.io/max-batch: "8"}
        spec: {selector: {matchLabels: {app: large}}, targetPorts: [{number: 8000}]}
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: chat}
        spec:
          backendRefs: [{name: small-pool}]
          adapter:
            name: small-base
            objectives: [{type: TimeToFirstToken, latency: {value: 1s, quantile: {numerator: 99}}}]
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: reason}
        spec:
          backendRefs: [{name: large-pool}]
          adapter:
            name: large-base
            objectives: [{type: TimeToFirstToken, latency: {value: 3s, quantile: {numerator: 99}}}]
        ---
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: summarize}
        spec:
          backendRefs: [{name: small-pool}, {name: large-pool}]
          adapter:
            name: summarize
            requirements: {minAccuracy: 0.75, maxLatency: 2s}
            variants:
              - {name: summarize-lora, pool: small-pool, accuracy: 0.81, costPer1kTokens: 0.2}
              - {name: large-base, pool: large-pool, accuracy: 0.92, costPer1kTokens: 1.5}
        """;
  }

  static Arm runArm(String name, Scaler scaler, Map<String, Integer> start, DayCurve day, double peak, long seed)
      throws Exception {
    Path dir = Files.createTempDirectory("llmgw-capacity");
    Path config = dir.resolve("cluster.yaml");
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    List<String> classes = List.of("small-base#chat", "summarize#basic", "large-base#reason");
    Workload w = Workload.classes("capacity", classes, new double[] {0.5, 0.3, 0.2}, Map.of(), 16, 96);
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts().withPolicy(PolicyShorthand.SCORERS, 50)
        .withCapacity(new CapacitySettings(Duration.ofSeconds(1), Duration.ofSeconds(10),
            Duration.ofSeconds((long) HYSTERESIS_SECONDS), Duration.ofSeconds((long) LOAD_SECONDS), false));
    // the day is compressed, so is every window: objectives judged over the last 20 s, not 5 minutes
    ObjectiveSettings judged = s.objectives();
    s = s.withObjectives(new ObjectiveSettings(judged.model(), judged.attainmentWindow(), Duration.ofSeconds(20),
        judged.minRequestsForScaling(), judged.targetUtilisation()));
    s = s.withRequests(s.requests().withDestinationFallbacks(true));
    Map<String, Double> podSecondsSampled = new LinkedHashMap<>();
    try (SimCluster cluster = new SimCluster(config, baseYaml(), PORT, pools(seed), scheduler)) {
      cluster.startWith(start);
      try (Epp epp = Epp.start(s, Clock.systemUTC());
          DevProxy proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
              .withEpp("127.0.0.1", epp.grpcPort()))) {
        cluster.watchedBy(epp);
        long t0 = System.nanoTime();
        double[] samples = {0};
        scheduler.scheduleWithFixedDelay(() -> {
          try {
            long now = System.nanoTime();
            for (Map.Entry<String, Integer> e : scaler.desired(epp.status(), now).entrySet()) {
              cluster.scaleTo(e.getKey(), e.getValue());
            }
            samples[0]++;
            for (String pool : List.of("small-pool", "large-pool")) {
              podSecondsSampled.merge(pool, (double) cluster.pods(pool), Double::sum);
            }
          } catch (Exception e) {
            System.err.println("scaling failed: " + e);
          }
        }, 1, 1, TimeUnit.SECONDS);
        double mean = peak * day.mean();
        long cpuBefore = ProcessCpu.selfMillis();
        System.out.printf("  %-8s ...", name);
        System.out.flush();
        RunResult r = new OpenLoopRun("127.0.0.1", proxy.port(), w, mean, day.seconds(), seed, 4096, 60)
            .shaped(day.toRealSeconds()).run(n -> {});
        double cpuMs = ProcessCpu.selfMillis() - cpuBefore;
        String metrics = EppMetricsText.scrape(epp);
        double costNow = cluster.cost();
        Map<String, Integer> peaks = Map.of("small-pool", cluster.peak("small-pool"), "large-pool",
            cluster.peak("large-pool"));
        scheduler.shutdownNow();
        System.out.printf(" %d/%d ok in %.0f s%n", r.ok(), r.sent(), (System.nanoTime() - t0) / 1e9);
        int within = 0;
        int tooMany = 0;
        int unavailable = 0;
        int other = 0;
        for (String c : classes) {
          ClassResult cr = r.byClass().get(c);
          if (cr == null) {
            continue;
          }
          for (ClassResult.Completed done : cr.completed()) {
            within += done.ttftMs() <= TTFT_LIMIT_MS.get(c) ? 1 : 0;
          }
          for (Map.Entry<String, Integer> o : cr.outcomes().entrySet()) {
            switch (o.getKey()) {
              case "ok" -> {}
              case "429" -> tooMany += o.getValue();
              case "503" -> unavailable += o.getValue();
              default -> other += o.getValue();
            }
          }
        }
        double waits = 0;
        double underOne = 0;
        for (String pool : List.of("small-pool", "large-pool")) {
          waits += EppMetricsText.value(metrics, "llmgw_flow_wait_seconds_count{pool=\"default/" + pool + "\"}");
          underOne += EppMetricsText.value(metrics,
              "llmgw_flow_wait_seconds_bucket{pool=\"default/" + pool + "\",le=\"1.0\"}");
        }
        Map<String, Double> meanPods = new HashMap<>();
        podSecondsSampled.forEach((pool, sum) -> meanPods.put(pool, sum / Math.max(1, samples[0])));
        return new Arm(name, costNow, r.sent(), within, tooMany, unavailable, other, waits, waits - underOne,
            maxWait(metrics), peaks, meanPods, cpuMs / Math.max(1, r.sent()));
      }
    } finally {
      scheduler.shutdownNow();
    }
  }

  /**
   * The longest wait in flow control, to the histogram's resolution: the smallest bucket bound every wait fell under (0
   * when none waited, infinity when one waited past the last bound).
   */
  static double maxWait(String metrics) {
    double[] bounds = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30};
    double max = 0;
    for (String pool : List.of("small-pool", "large-pool")) {
      double total = EppMetricsText.value(metrics, "llmgw_flow_wait_seconds_count{pool=\"default/" + pool + "\"}");
      double bound = total == 0 ? 0 : Double.POSITIVE_INFINITY;
      for (int i = bounds.length - 1; i >= 0 && total > 0; i--) {
        double under = EppMetricsText.value(metrics, "llmgw_flow_wait_seconds_bucket{pool=\"default/" + pool
            + "\",le=\"" + bounds[i] + "\"}");
        if (under == total) {
          bound = bounds[i];
        }
      }
      max = Math.max(max, bound);
    }
    return max;
  }
}
