package io.llmgw.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.Stores;
import io.llmgw.batch.client.BatchClient;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.LocalRedis;
import io.llmgw.batch.store.StoredFile;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.PoolStats;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The batch service killed while it works (issue 14's crash run): a batch of {@code lines} lines through the real
 * gateway (simulated pods, the EPP, the dev proxy, in this JVM) while the batch service, in a JVM of its own, is
 * SIGKILLed {@code kills} times and started again; for the embedded store and for Redis (restarted once, append-only
 * file on). Prints, per store, what the pods served and what the output and error files hold: every custom_id exactly
 * once. Usage: [lines] [kills].
 */
public final class BatchCrashRun {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BATCH_ID = "batch_crashrun";

  public static void main(String[] args) throws Exception {
    int lines = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int kills = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("llmgw-batch-crash");
    StringBuilder table = new StringBuilder(
        "| store | lines | SIGKILLs | requests the pods served | sent again after a "
            + "kill | output lines | error lines | distinct custom_ids | lost | duplicated | seconds |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    table.append(run("embedded (SQLite)", "sqlite:" + dir.resolve("batch.db"), null, lines, kills, dir));
    if (LocalRedis.available()) {
      try (LocalRedis redis = LocalRedis.start(dir, true)) {
        table.append(run("Redis (AOF, restarted once)", redis.uri(), redis, lines, kills, dir));
      }
    } else {
      System.out.println("redis-server is not installed: the Redis row is skipped");
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  private static String run(String name, String store, LocalRedis redis, int lines, int kills, Path dir)
      throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).loras(1, 1).decode(5, 0.2).seed(1).build();
    SimPods pods = SimPods.start(sim, 4, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, BatchRun.config(pods));
    int port = LoopbackPorts.free();
    long start = System.nanoTime();
    try (Rig rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts(),
        ProxySettings.defaults().withListener("127.0.0.1", 0).withBatchService("127.0.0.1:" + port))) {
      try (BatchStore s = Stores.open(store)) {
        byte[] content = BatchRun.batchFile(lines, 1);
        long now = System.currentTimeMillis() / 1000;
        s.putFile(new StoredFile("file-crashrun", "batch", "in.jsonl", content.length, now), content);
        s.createBatch(Batch.created(BATCH_ID, "/v1/chat/completions", "file-crashrun", "24h", Map.of(), now,
            now + 86_400));
      }
      for (int kill = 0; kill < kills; kill++) {
        Process child = start(store, rig, port, dir.resolve(name.hashCode() + "-" + kill + ".log"));
        long before = served(pods);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (served(pods) < before + lines / (kills + 2) && child.isAlive() && System.nanoTime() < deadline) {
          Thread.sleep(20); // polling a condition with a deadline
        }
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
        System.out.printf("  %s: SIGKILL %d after %d requests served%n", name, kill + 1, served(pods));
        if (redis != null && kill == kills / 2) {
          redis.restart();
          System.out.printf("  %s: redis-server SIGKILLed and restarted from its append-only file%n", name);
        }
      }
      Process last = start(store, rig, port, dir.resolve(name.hashCode() + "-last.log"));
      try (BatchClient client = new BatchClient("http://127.0.0.1:" + rig.proxyPort())) {
        JsonNode b = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
          try {
            b = client.awaitDone(BATCH_ID, Duration.ofSeconds(300));
            break;
          } catch (java.io.IOException e) {
            Thread.sleep(200); // the service is still starting
          }
        }
        Map<String, Integer> perId = new HashMap<>();
        int out = count(client, b.path("output_file_id"), perId);
        int err = count(client, b.path("error_file_id"), perId);
        long duplicated = perId.values().stream().filter(n -> n > 1).count();
        long served = served(pods);
        return String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.0f |%n", name, lines,
            kills, served, served - lines, out, err, perId.size(), lines - perId.size(), duplicated,
            (System.nanoTime() - start) / 1e9);
      } finally {
        last.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Lines of the file, each custom_id counted into {@code perId}; 0 for a batch without that file. */
  static int count(BatchClient client, JsonNode fileId, Map<String, Integer> perId) throws Exception {
    if (!fileId.isTextual()) {
      return 0;
    }
    int n = 0;
    for (String line : client.content(fileId.asText()).split("\n")) {
      if (!line.isBlank()) {
        perId.merge(JSON.readTree(line).get("custom_id").asText(), 1, Integer::sum);
        n++;
      }
    }
    return n;
  }

  private static long served(SimPods pods) {
    return PoolStats.of(pods).requestsByPod().values().stream().mapToLong(Long::longValue).sum();
  }

  private static Process start(String store, Rig rig, int port, Path log) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "io.llmgw.batch.BatchCommand",
        "--port", Integer.toString(port), "--store", store, "--epp", "127.0.0.1:" + rig.epp().metricsPort(),
        "--gateway", "http://127.0.0.1:" + rig.proxyPort(), "--slots-per-pod", "64", "--visibility-timeout", "5s")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

}
