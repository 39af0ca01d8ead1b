package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.Stores;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.FileContentWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47: what crash-looped the batch service at its shipped heap, in a JVM of its own with a smaller one (160 MB,
 * -XX:+ExitOnOutOfMemoryError as deployed): two batches over one 84 MB file of 7 MB lines validate and complete, and a
 * 190 MB upload sent as a plain form field (no filename) is stored, with the service up throughout. The old intake held
 * a batch's lines whole while validating (two side by side) and a form field in memory: both ran out of heap.
 */
class SmallHeapTest {
  static final int LINES = 12;
  static final int LINE_BYTES = 7_000_000;

  @TempDir
  Path dir;

  @Test
  void sevenMegabyteLinesAndALargeFormFieldFitA160MbHeap() throws Exception {
    String store = "sqlite:" + dir.resolve("batch.db");
    long now = System.currentTimeMillis() / 1000;
    try (BatchStore s = Stores.open(store)) {
      FileContentWriter w = new FileContentWriter(s, "file-big");
      String pad = "x".repeat(LINE_BYTES);
      for (int i = 0; i < LINES; i++) {
        byte[] line = ("{\"custom_id\":\"r" + i + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
            + "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + pad + "\"}]}}\n")
            .getBytes(StandardCharsets.UTF_8);
        w.write(line, 0, line.length);
      }
      w.publish("batch", "big.jsonl", now, "");
      for (String id : List.of("batch_a", "batch_b")) {
        s.createBatch(Batch.created(id, "/v1/chat/completions", "file-big", "24h", Map.of(), now, now + 86_400));
      }
    }
    try (FakeGateway gateway = new FakeGateway()) {
      gateway.podSlots.set(4);
      int port = LoopbackPorts.free();
      Path log = dir.resolve("service.log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process child = new ProcessBuilder(java, "-Xmx160m", "-XX:+ExitOnOutOfMemoryError", "-cp",
          System.getProperty("java.class.path"), "io.llmgw.batch.BatchCommand", "--port", Integer.toString(port),
          "--store", store, "--epp", gateway.admin(), "--gateway", gateway.frontDoor(), "--poll-interval", "20ms")
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try (ApiClient api = new ApiClient(port)) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> api.get("/ready").status() == 200);
        byte[] field = ("{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
            + "{\"model\":\"m\"}}\n").repeat(190_000_000 / 90).getBytes(StandardCharsets.UTF_8);
        ApiClient.Reply stored = api.upload("batch", field, "");
        assertThat(stored.status()).as("the form field was stored").isEqualTo(200);
        assertThat(stored.json().get("bytes").asLong()).isEqualTo(field.length);
        for (String id : List.of("batch_a", "batch_b")) {
          await().atMost(Duration.ofSeconds(180)).until(() -> !child.isAlive()
              || "completed".equals(api.get("/v1/batches/" + id).json().get("status").asText()));
          assertThat(child.isAlive()).as("the service is up; see " + log).isTrue();
          JsonNode b = api.get("/v1/batches/" + id).json();
          assertThat(b.get("request_counts").get("completed").asInt()).isEqualTo(LINES);
        }
      } finally {
        child.destroy();
        if (!child.waitFor(10, TimeUnit.SECONDS)) {
          child.destroyForcibly();
        }
      }
      assertThat(Files.readString(log)).doesNotContain("OutOfMemoryError");
    }
  }
}
