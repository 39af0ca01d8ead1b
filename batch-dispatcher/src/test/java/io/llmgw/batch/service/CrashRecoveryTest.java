package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.Stores;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.LocalRedis;
import io.llmgw.batch.store.StoredFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch service in a JVM of its own, SIGKILLed while requests are in flight and started again: at the end the output
 * and error files hold exactly one line per custom_id. (The bench's crash run does the same with 2,000 lines and five
 * kills.)
 */
class CrashRecoveryTest {
  static final int LINES = 300;
  static final int KILLS = 3;

  @TempDir
  Path dir;

  @Test
  void theEmbeddedStoreLosesAndRepeatsNothingAcrossKills() throws Exception {
    run("sqlite:" + dir.resolve("batch.db"), null);
  }

  @Test
  void redisLosesAndRepeatsNothingAcrossKillsAndARestartOfRedis() throws Exception {
    assumeTrue(LocalRedis.available(), "redis-server is not installed (.ci/run installs it)");
    try (LocalRedis redis = LocalRedis.start(dir, true)) {
      run(redis.uri(), redis);
    }
  }

  private void run(String store, LocalRedis redis) throws Exception {
    try (FakeGateway gateway = new FakeGateway()) {
      gateway.podSlots.set(1);
      // a model's time to answer, so that kills land while requests are in flight
      gateway.answer = body -> FakeGateway.ok(body).after(ThreadLocalRandom.current().nextInt(5, 40));
      String batchId = "batch_crash";
      try (BatchStore s = Stores.open(store)) {
        StringBuilder in = new StringBuilder();
        for (int i = 1; i <= LINES; i++) {
          in.append(BatchServiceTest.line("req-" + i, "m")).append('\n');
        }
        byte[] content = in.toString().getBytes(StandardCharsets.UTF_8);
        long now = System.currentTimeMillis() / 1000;
        s.putFile(new StoredFile("file-crash", "batch", "in.jsonl", content.length, now), content);
        s.createBatch(Batch.created(batchId, "/v1/chat/completions", "file-crash", "24h", Map.of(), now,
            now + 86_400));
      }
      int port = LoopbackPorts.free();
      for (int kill = 0; kill < KILLS; kill++) {
        Process child = start(store, gateway, port, kill);
        int before = gateway.received.get();
        int step = LINES / (KILLS + 2);
        await().atMost(Duration.ofSeconds(60)).until(() -> gateway.received.get() >= before + step || !child.isAlive());
        assertThat(child.isAlive()).as("the batch service died on its own; see " + dir).isTrue();
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
        if (redis != null && kill == 1) {
          redis.restart(); // with appendonly: acknowledged writes survive
        }
      }
      Process last = start(store, gateway, port, KILLS);
      try (ApiClient api = new ApiClient(port)) {
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
            .until(() -> "completed".equals(api.get("/v1/batches/" + batchId).json().get("status").asText()));
        JsonNode b = api.get("/v1/batches/" + batchId).json();
        assertThat(b.get("request_counts").get("completed").asInt()).isEqualTo(LINES);
        String out = api.get("/v1/files/" + b.get("output_file_id").asText() + "/content").text();
        Map<String, Integer> perId = new HashMap<>();
        for (String l : out.split("\n")) {
          perId.merge(FakeGateway.JSON.readTree(l).get("custom_id").asText(), 1, Integer::sum);
        }
        assertThat(b.get("error_file_id").isNull()).isTrue();
        assertThat(perId).hasSize(LINES).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
      } finally {
        last.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      // at-least-once delivery: lines in flight at a kill were sent again, yet each has one result
      assertThat(gateway.received.get()).isGreaterThanOrEqualTo(LINES);
      assertThat(gateway.receivedById).hasSize(LINES);
    }
  }

  private Process start(String store, FakeGateway gateway, int port, int run) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-cp", System.getProperty("java.class.path"), "io.llmgw.batch.BatchCommand",
        "--port", Integer.toString(port), "--store", store, "--epp", gateway.admin(), "--gateway",
        gateway.frontDoor(), "--slots-per-pod", "16", "--poll-interval", "20ms", "--visibility-timeout", "2s");
    return new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(Files.createFile(dir.resolve("service-" + run + ".log")).toFile()).start();
  }

}
