package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Two tenants in one priority band (issue 31): "heavy" sends prompts ten times the size of "light"'s, on 2 simulated
 * pods × 8 sequences, both through the dev proxy with their own API keys and equal weights. Two shapes, each under
 * token fairness (the default) and request round-robin:
 *
 * <ul>
 *   <li><b>both backlogged</b>: closed-loop users, 64 light and 16 heavy, so flow control always holds requests of
 *       both (a light request is short: fewer users would leave light with nothing waiting while its requests decode,
 *       and its share would be its demand, not the band's); the light tenant's share of the tokens served (prompt +
 *       completion, from the responses' usage);
 *   <li><b>light under a flood</b>: light with 4 users against heavy's 24; light's TTFT p50/p90 against light alone
 *       with the same 4 users.
 * </ul>
 *
 * Usage: [seconds per run] (default 30, after 5 s of warm-up) [saturation queue limit] (default the EPP's, 5: a pod
 * that queues fewer than this many requests is not full, and what it queues, it serves first come first served)
 * [{@code replicas=N}: N EPP replicas behind the proxy] [{@code engine-priority}]: the flood only, on pods that schedule by priority (vLLM's {@code --scheduling-policy
 * priority}) with the light tenant's requests marked {@code "priority": -1} by the client, the heavy one's 0: the most
 * the engine's own order could give the light tenant, whoever set the priorities.
 */
public final class TenantFairnessRun {
  static final int HEAVY_PROMPT = 2_000;
  static final int LIGHT_PROMPT = 200;
  static final int OUTPUT = 16;
  private static int queueLimit;
  private static boolean enginePriority;
  /** EPP replicas behind the proxy, sharing their counts and tenants' spending (issue 51, item 5). */
  private static int replicas;

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 30;
    queueLimit = args.length > 1 ? Integer.parseInt(args[1]) : io.llmgw.picker.SaturationSettings.defaults()
        .queueLimit();
    if (args.length > 2 && !args[2].equals("engine-priority") && !args[2].matches("replicas=[1-8]")) {
      throw new IllegalArgumentException("third argument: 'engine-priority', 'replicas=N' or nothing, got '" + args[2]
          + "'");
    }
    enginePriority = args.length > 2 && args[2].equals("engine-priority");
    replicas = args.length > 2 && args[2].startsWith("replicas=") ? Integer.parseInt(args[2].substring(9)) : 1;
    SimConfig sim = SimConfig.builder().capacity(8, 1024, SimConfig.defaults().numGpuBlocks()).decode(20, 1.0)
        .priorityScheduling(enginePriority).seed(1).build();
    Path dir = Files.createTempDirectory("llmgw-tenant-fairness");
    Path keys = dir.resolve("keys.yaml");
    Files.writeString(keys, "keys:\n  - {tenant: heavy, sha256: " + sha256("sk-heavy") + "}\n"
        + "  - {tenant: light, sha256: " + sha256("sk-light") + "}\n");
    System.out.printf(Locale.ROOT, "2 pods × 8 sequences; prompts heavy %d, light %d tokens, %d output tokens; %.0f s "
        + "per run after 5 s; saturation queue limit %d; %d EPP replica(s)%n", HEAVY_PROMPT, LIGHT_PROMPT, OUTPUT,
        seconds, queueLimit, replicas);
    StringBuilder share = new StringBuilder("| band shared by | light's share of tokens | light TTFT p50 / p90 ms "
        + "| heavy TTFT p50 / p90 ms | requests light / heavy |\n|---|---:|---:|---:|---:|\n");
    StringBuilder flood = new StringBuilder("| band shared by | light TTFT p50 / p90 ms | light alone p50 / p90 ms "
        + "| p90 ratio | light requests | heavy requests |\n|---|---:|---:|---:|---:|---:|\n");
    for (FlowSettings.Fairness f : List.of(FlowSettings.Fairness.TOKENS, FlowSettings.Fairness.ROUND_ROBIN)) {
      String name = f == FlowSettings.Fairness.TOKENS ? "tokens" : "round-robin";
      if (!enginePriority) {
        ClosedLoop.Result[] both = run(sim, dir, keys, f, 64, 16, seconds);
        ClosedLoop.Result light = both[0];
        ClosedLoop.Result heavy = both[1];
        share.append(String.format(Locale.ROOT, "| %s | %.1f %% | %.0f / %.0f | %.0f / %.0f | %d / %d |%n", name,
            100.0 * light.tokens() / (light.tokens() + heavy.tokens()), light.ttftMs(50), light.ttftMs(90),
            heavy.ttftMs(50), heavy.ttftMs(90), light.requests(), heavy.requests()));
      }
      ClosedLoop.Result[] flooded = run(sim, dir, keys, f, 4, 24, seconds);
      ClosedLoop.Result alone = run(sim, dir, keys, f, 4, 0, seconds)[0];
      flood.append(String.format(Locale.ROOT, "| %s | %.0f / %.0f | %.0f / %.0f | %.2f | %d | %d |%n", name,
          flooded[0].ttftMs(50), flooded[0].ttftMs(90), alone.ttftMs(50), alone.ttftMs(90),
          flooded[0].ttftMs(90) / alone.ttftMs(90), flooded[0].requests(), flooded[1].requests()));
    }
    System.out.println();
    System.out.print(share);
    System.out.println();
    System.out.print(flood);
    System.exit(0);
  }

  private static ClosedLoop.Result[] run(SimConfig sim, Path dir, Path keys, FlowSettings.Fairness fairness,
      int lightUsers, int heavyUsers, double seconds) throws Exception {
    SimPods pods = SimPods.start(sim, 2, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.route("base", "sim-pool", SimConfig.DEFAULT_MODEL, 0)
        + FileModeYaml.pods("sim", "sim", pods.podAddresses()));
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withTenancy(new TenancySettings(keys, null, Duration.ofSeconds(5)));
    s = s.withFlow(s.flow().with(fairness, FlowSettings.Ordering.FCFS).withLimits(Duration.ofSeconds(60), 10_000,
        1L << 30, 5_000, 512L << 20),
        new io.llmgw.picker.SaturationSettings(queueLimit, s.saturation().kvLimit(),
            s.saturation().staleAfter()));
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0), replicas)) {
      String url = "http://127.0.0.1:" + rig.proxyPort() + "/v1/chat/completions";
      System.out.printf("  %s, light %d users, heavy %d ...", fairness, lightUsers, heavyUsers);
      System.out.flush();
      List<ClosedLoop> loops = new ArrayList<>();
      loops.add(new ClosedLoop(url, "sk-light", LIGHT_PROMPT, OUTPUT, lightUsers, enginePriority ? -1 : null));
      if (heavyUsers > 0) {
        loops.add(new ClosedLoop(url, "sk-heavy", HEAVY_PROMPT, OUTPUT, heavyUsers, enginePriority ? 0 : null));
      }
      ClosedLoop.Result[] out = ClosedLoop.runTogether(loops, Duration.ofSeconds(5), Duration.ofMillis((long) (seconds
          * 1000)));
      System.out.printf(" done (%d errors)%n", java.util.Arrays.stream(out).mapToLong(ClosedLoop.Result::errors).sum());
      return out;
    }
  }

  static String sha256(String key) {
    return io.llmgw.api.keys.ApiKeys.sha256(key);
  }
}
