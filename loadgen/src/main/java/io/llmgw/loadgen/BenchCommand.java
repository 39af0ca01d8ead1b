package io.llmgw.loadgen;

import io.llmgw.api.Causes;
import io.llmgw.api.ConfigException;
import io.llmgw.api.TempTree;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import io.llmgw.scraper.kvevents.KvEventSettings;
import io.llmgw.sim.SimCommand;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimProfile;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load benchmark: the same open-loop workload through several policies on the same simulated pool, one fresh
 * pool per run, one table per rate.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Compare routing policies under open-loop load on simulated pods; prints one table per rate.")
public final class BenchCommand implements Callable<Integer> {
  @Option(names = "--workload", defaultValue = "multi-lora",
      description = "multi-lora (15 adapters, 60/30/10 traffic, max-loras 3), zipf (1,000 adapters, Zipf 1.0) or "
          + "prefix (base model, questions about 40 documents of 1,500 tokens; KV cache of 1,024 blocks per pod) or "
          + "chat (base model, sessions of 4-8 turns each repeating the conversation so far; same cache).")
  String workload;

  @Option(names = "--rates", split = ",", defaultValue = "10,20,30", description = "Requests per second, one run each.")
  List<Double> rates;

  @Option(names = "--duration", defaultValue = "30",
      description = "Seconds of arrivals per run (default: ${DEFAULT-VALUE}).")
  double duration;

  @Option(names = "--policies", split = ",", defaultValue = "round-robin,random,least-request,seed,seed:8,scorers",
      description = "Policies to compare; seed:N sets the seed policy's pending threshold, a +session suffix adds the "
          + "session-affinity scorer at weight " + PolicySpec.SESSION_WEIGHT + " (default: ${DEFAULT-VALUE}).")
  List<String> policies;

  @Option(names = "--pods", defaultValue = "8", description = "Simulated pods (default: ${DEFAULT-VALUE}).")
  int podCount;

  @Option(names = "--first-ip", defaultValue = "127.0.0.11", description = "First pod's address.")
  String firstIp;

  @Option(names = "--max-num-seqs", defaultValue = "16", description = "Running slots per pod.")
  int maxNumSeqs;

  @Option(names = "--decode-base-ms", defaultValue = "20",
      description = "The simulated pods' decode step time with one sequence running (default: ${DEFAULT-VALUE}).")
  double decodeBaseMs;

  @Option(names = "--decode-per-seq-ms", defaultValue = "1.0",
      description = "Added to the step time per running sequence (default: ${DEFAULT-VALUE}).")
  double decodePerSeqMs;

  @Option(names = "--profile", description = "The pods' step costs from a simulator profile (sim/README.md, \"Measured "
      + "step costs\"): llama-3.1-8b-h100, qwen2.5-72b-tp4-h100 or a file; --max-num-seqs and the workload's cache "
      + "size still apply, so that the pool saturates at rates this one-JVM rig can offer (default: the flags' costs).")
  String profile;

  @Option(names = "--seed", defaultValue = "1", description = "Seed for arrivals, prompts and the pods.")
  long seed;

  @Option(names = "--warmup", defaultValue = "10", description = "Seconds of unmeasured load before the first run, "
      + "on its own pods (default: ${DEFAULT-VALUE}). Without it the first run pays for compiling the gateway and "
      + "the simulator and, near saturation, never catches up.")
  double warmup;

  @Option(names = "--epp-replicas", split = ",", defaultValue = "1", description = "EPP replicas behind the dev "
      + "proxy, one set of runs each (e.g. 1,2,4): each replica keeps its own state, as separate processes would "
      + "(default: ${DEFAULT-VALUE}).")
  List<Integer> replicas;

  @Option(names = "--epp-peers", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "With several EPP replicas, each watches the others' in-flight counts and routed prompts "
          + "(serve's --peers); --no-epp-peers keeps each replica to its own, the control (default: on).")
  boolean eppPeers;

  @Option(names = "--tokenizer", defaultValue = "sim", description = "The prompts' tokens, for the pods and for "
      + "precise routing alike: sim (the simulator's) or hf:DIR, a model's Hugging Face files, rendered and tokenized "
      + "as vLLM serving it would (default: ${DEFAULT-VALUE}).")
  String tokenizer;

  private ChatTokenizer model;

  private static final KvEventSettings EVENTS = new KvEventSettings(KvEventsConfig.DEFAULT_ON.port(),
      KvEventsConfig.DEFAULT_ON.replayPort(), "", Duration.ofSeconds(1));

  @Override
  public Integer call() throws Exception {
    Workload w = switch (workload) {
      case "multi-lora" -> Workload.multiLora();
      case "zipf" -> Workload.zipf(1000, 1.0);
      case "prefix" -> Workload.prefix(SimConfig.DEFAULT_MODEL, 40);
      case "chat" -> Workload.chat(SimConfig.DEFAULT_MODEL);
      default -> {
        System.err.println("llmgw bench: unknown --workload " + workload + " (multi-lora, zipf, prefix or chat)");
        yield null;
      }
    };
    if (w == null) {
      return 2;
    }
    List<PolicySpec> specs = new ArrayList<>();
    try {
      for (String p : policies) {
        specs.add(PolicySpec.parse(p));
        specs.getLast().config(); // a file that cannot be read fails now, not after the runs before it
      }
    } catch (ConfigException e) {
      System.err.println("llmgw bench: cannot read the plugin configuration: " + e.getMessage());
      return 2;
    } catch (IllegalArgumentException e) {
      System.err
          .println("llmgw bench: --policies takes seed, seed:N, scorers, latency, round-robin, random, least-request, "
              + "or file:PLUGINS.yaml, each with an optional +session ("
              + e.getMessage() + ")");
      return 2;
    }
    try {
      model = SimCommand.model(tokenizer);
    } catch (IllegalArgumentException e) {
      System.err.println("llmgw bench: " + e.getMessage());
      return 2;
    }
    SimConfig sim = simConfig(w);
    System.out.printf("llmgw bench: workload %s, %d pods (max-num-seqs %d, max-loras %d, max-cpu-loras %d), "
        + "%.0f s of Poisson arrivals per run, seed %d%n", w.name(), podCount, sim.maxNumSeqs(), sim.maxLoras(),
        sim.maxCpuLoras(), duration, seed);
    if (warmup < 0 || duration <= 0 || replicas.stream().anyMatch(n -> n < 1 || n > 16)) {
      System.err.println("llmgw bench: --duration must be positive, --warmup not negative and --epp-replicas within "
          + "1..16");
      return 2;
    }
    Path dir = Files.createTempDirectory("llmgw-bench");
    try {
      if (warmup > 0) {
        warmUp(sim, w, specs.getFirst(), rates.getFirst(), dir);
      }
      for (double rate : rates) {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (int n : replicas) {
          for (PolicySpec policy : specs) {
            rows.put(replicas.size() == 1 && n == 1 ? policy.toString() : policy + " ×" + n,
                runOne(sim, w, policy, n, rate, dir));
          }
        }
        print(rate, rows);
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("llmgw bench: " + e.getMessage());
      return e instanceof IllegalArgumentException ? 2 : 1;
    } finally {
      TempTree.delete(dir);
    }
    return 0;
  }

  private SimConfig simConfig(Workload w) {
    boolean longTail = w.models().size() > 100;
    boolean baseOnly = w.models().contains(SimConfig.DEFAULT_MODEL);
    // the prefix workload's documents must outgrow one pod's cache for prefix affinity to matter
    int gpuBlocks = baseOnly ? 1024 : SimConfig.defaults().numGpuBlocks();
    SimConfig.Builder b = profile == null ? SimConfig.builder().decode(decodeBaseMs, decodePerSeqMs)
        : SimProfile.load(profile).applyTo(SimConfig.builder()).model(SimConfig.DEFAULT_MODEL);
    return b.adapters(baseOnly ? List.of() : w.models())
        .loras(longTail ? 4 : 3, longTail ? 64 : 15).capacity(maxNumSeqs, 1024, gpuBlocks)
        .seed(seed).kvEvents(KvEventsConfig.DEFAULT_ON).build();
  }

  /**
   * The same code paths as the runs, compiled before any of them is measured: every run gets fresh pods and a fresh
   * EPP, but they share this JVM. The arrivals use another seed, so no run sees these prompts again.
   */
  private void warmUp(SimConfig sim, Workload w, PolicySpec policy, double rate, Path dir) throws Exception {
    try (Rig rig = startRig(sim, w, policy, replicas.getLast(), dir)) {
      System.out.printf("  warming up (%s at %.1f/s for %.0f s, not measured) ...", policy, rate, warmup);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, warmup, ~seed, 4096, 120).run(n -> {});
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
    }
  }

  private Rig startRig(SimConfig sim, Workload w, PolicySpec policy, int eppReplicas, Path dir) throws Exception {
    SchedulingConfig scheduling = policy.config(); // before the pods start: a bad file leaves nothing running
    SimPods pods;
    try {
      pods = SimPods.start(sim, podCount, firstIp, 8000, model);
    } catch (Exception e) {
      throw new IllegalStateException("the simulated pods cannot listen on " + firstIp + " and the next "
          + (podCount - 1) + " addresses, port 8000 (" + Causes.rootMessage(e) + "); --first-ip moves them", e);
    }
    Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, w.models());
    EppSettings d = EppSettings.defaults(config);
    // every run's pods publish KV-cache events and every EPP follows them, so that policies differ only in routing
    boolean simTokens = scheduling.lists(PrecisePrefixCacheScorer.TYPE) && !scheduling.lists(PromptTokensProducer.TYPE);
    EppSettings settings = d.onLoopbackEphemeralPorts().withScheduling(!simTokens ? scheduling
        : scheduling
            .withPlugin(PluginSpec.of(PromptTokensProducer.TYPE, Map.of(PromptTokensProducer.TOKENIZER, tokenizer))))
        .withScrape(d.scrape().withKvEvents(EVENTS), d.staleAfter());
    return Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0), eppReplicas, eppPeers);
  }

  private Row runOne(SimConfig sim, Workload w, PolicySpec policy, int eppReplicas, double rate, Path dir)
      throws Exception {
    try (Rig rig = startRig(sim, w, policy, eppReplicas, dir)) {
      System.out.printf("  %-16s ×%d at %5.1f/s ...", policy, eppReplicas, rate);
      System.out.flush();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), w, rate, duration, seed, 4096, 120)
          .run(n -> {});
      PoolStats stats = PoolStats.of(rig.pods());
      System.out.printf(" %d/%d ok%n", r.ok(), r.sent());
      if (policy.learnsLatency()) {
        printFit(rig.epp().latencyEstimator().pooledFit());
      }
      return new Row(r, stats);
    }
  }

  private record Row(RunResult result, PoolStats stats) {}

  /** The latency model's weights over all pods at the end of a run, for explaining what the latency policy learned. */
  private static void printFit(LatencyEstimator.Fit fit) {
    System.out.printf("    latency model (%.0f TTFT and %.0f TPOT observations, decayed):%n", fit.ttftObservations(),
        fit.tpotObservations());
    for (int i = 0; i < LatencyEstimator.FEATURES.size(); i++) {
      System.out.printf("      %-28s TTFT %+9.2f ms   TPOT %+7.3f ms%n", LatencyEstimator.FEATURES.get(i),
          fit.ttftWeights()[i], fit.tpotWeights()[i]);
    }
  }

  /**
   * A policy, with the seed policy's pending threshold when given as {@code seed:N}, and the session-affinity scorer
   * when it ends in {@code +session}; or {@code file:PATH}, a plugin configuration as {@code serve --plugins-config}
   * reads it.
   */
  record PolicySpec(PolicyShorthand name, int threshold, boolean session, Path file) {
    static final double SESSION_WEIGHT = 2;
    private static final String SESSION = "+session";
    private static final String FILE = "file:";

    static PolicySpec parse(String spec) {
      boolean session = spec.endsWith(SESSION);
      String base = session ? spec.substring(0, spec.length() - SESSION.length()) : spec;
      if (base.startsWith(FILE)) {
        return new PolicySpec(null, LoraPackingScorer.DEFAULT_PENDING_THRESHOLD, session,
            Path.of(base.substring(FILE.length())));
      }
      int colon = base.indexOf(':');
      if (colon < 0) {
        return new PolicySpec(PolicyShorthand.parse(base), LoraPackingScorer.DEFAULT_PENDING_THRESHOLD, session, null);
      }
      return new PolicySpec(PolicyShorthand.parse(base.substring(0, colon)),
          Integer.parseInt(base.substring(colon + 1)), session, null);
    }

    SchedulingConfig config() throws ConfigException {
      SchedulingConfig c = file != null ? PluginConfigFile.load(file, w -> System.err.println("llmgw bench: " + w))
          : name.config(threshold);
      return session ? c.withScorer(PluginSpec.of(SessionAffinityScorer.TYPE), SESSION_WEIGHT, SESSION) : c;
    }

    /** Whether it uses the latency scorer, whose fit the run prints. */
    boolean learnsLatency() {
      return name == PolicyShorthand.LATENCY || file != null && file.toString().contains("latency");
    }

    @Override
    public String toString() {
      String shown = file != null ? file.getFileName().toString().replaceFirst("\\.yaml$", "") : name.cliName()
          + (threshold == LoraPackingScorer.DEFAULT_PENDING_THRESHOLD ? "" : ":" + threshold);
      return shown + (session ? SESSION : "");
    }
  }

  private static void print(double rate, Map<String, Row> rows) {
    System.out.printf("%n### %.0f requests/s%n%n", rate);
    System.out.println("| policy | done/s | tokens/s | TTFT p50 ms | TTFT p90 ms | TTFT p99 ms | TPOT p90 ms "
        + "| NTPOT p90 ms | errors | adapter swaps | GPU-slot hits | prefix-cache hits |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    rows.forEach((policy, row) -> {
      RunResult r = row.result();
      PoolStats s = row.stats();
      System.out.printf("| %s | %.1f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %d | %d | %.0f %% | %.0f %% |%n",
          policy,
          r.throughput(), r.tokensPerSecond(), r.ttftMs(50), r.ttftMs(90), r.ttftMs(99), r.tpotMs(90),
          r.normalizedTpotMs(90), r.errors(),
          s.swaps(), s.adapterUses() == 0 ? 0.0 : 100.0 * s.affinityHits() / s.adapterUses(),
          100 * s.prefixCacheHitRate());
    });
    System.out.println();
  }
}
