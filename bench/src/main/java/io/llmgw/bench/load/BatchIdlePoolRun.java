package io.llmgw.bench.load;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.client.BatchClient;
import io.llmgw.batch.dispatch.BatchMetrics;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * Issue 27, item 5: a batch on an idle pool, with the dispatcher's default budget ({@code --slots-per-pod 64}, which
 * overstates these 8-slot pods eightfold, as an operator who sets nothing gets): how many of its dispatches the EPP
 * refuses (429) and how close the batch comes to the pool's capacity. The same pool as {@link BatchRun}; no interactive
 * traffic. Usage: [lines] [seed]. Bounded: it stops at 30 minutes whether or not the batch finished.
 */
public final class BatchIdlePoolRun {
  static final Duration LIMIT = Duration.ofMinutes(30);

  public static void main(String[] args) throws Exception {
    int lines = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
    int seqs = args.length > 2 ? Integer.parseInt(args[2]) : BatchRun.SEQS;
    SimConfig sim = BatchRun.pods(seed, seqs);
    double capacity = PriorityRun.capacity(sim, 56);
    Path dir = Files.createTempDirectory("llmgw-batch-idle");
    SimPods pods = SimPods.start(sim, BatchRun.PODS, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, BatchRun.config(pods));
    int batchPort = LoopbackPorts.free();
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts().withPolicy(PolicyShorthand.SCORERS, 50);
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withBatchService("127.0.0.1:" + batchPort))) {
      String front = "http://127.0.0.1:" + rig.proxyPort();
      BatchSettings defaults = BatchSettings.defaults();
      BatchService service = BatchService.start(new BatchSettings(
          new BatchSettings.Endpoints("127.0.0.1", batchPort, "127.0.0.1:" + rig.epp().metricsPort(), front, null),
          "sqlite:" + dir.resolve("idle.db"), defaults.budget(), defaults.delivery(),
          BatchSettings.InputLimits.defaults(), Duration.ofDays(30), BatchSettings.Access.OPEN), Clock.systemUTC());
      try (BatchClient client = new BatchClient(front)) {
        String id = client.create(client.upload("idle.jsonl", BatchRun.batchFile(lines, seed)),
            "/v1/chat/completions");
        String pool = "default/sim-pool";
        BatchMetrics m = service.metrics();
        long start = System.nanoTime();
        long firstDone = -1;
        long deadline = start + LIMIT.toNanos();
        while (m.completedTotal(pool) < lines && System.nanoTime() < deadline) {
          if (firstDone < 0 && m.completedTotal(pool) > 0) {
            firstDone = System.nanoTime();
          }
          Thread.sleep(200); // a progress poll of a run that lasts minutes
        }
        double seconds = (System.nanoTime() - (firstDone < 0 ? start : firstDone)) / 1e9;
        double done = m.completedTotal(pool);
        double dispatched = m.dispatchedTotal(pool);
        double refused = m.retriedTotal(pool, "429");
        System.out.printf(Locale.ROOT, "| %d lines | %s | %.0f / %.0f | %.0f (%.2f %%) | %.1f/s | %.1f/s (%.0f %%) |%n",
            lines, client.batch(id).path("status").asText(), done, dispatched, refused,
            100 * refused / Math.max(1, dispatched),
            capacity, done / seconds, 100 * done / seconds / capacity);
      } finally {
        service.close();
      }
    }
  }
}
