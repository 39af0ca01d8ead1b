package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.BrowserHeaders;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.dispatch.LoadReader;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.SqliteStore;
import io.llmgw.testing.ManualClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch service over HTTP against a fake gateway: the lifecycle from upload to files, the budget, 429s, unreadable
 * load, final 4xx answers, cancel and expiry. The dispatcher and lifecycle are driven pass by pass, with a clock the
 * test moves; requests and answers are real HTTP.
 */
class BatchServiceTest {
  @TempDir
  Path dir;
  FakeGateway gateway;
  ManualClock clock;
  BatchService service;
  ApiClient api;

  @BeforeEach
  void start() throws Exception {
    gateway = new FakeGateway();
    clock = new ManualClock(Instant.parse("2026-11-24T12:00:00Z"));
    BatchSettings settings = BatchSettings.defaults().withListener("127.0.0.1", 0)
        .withGateway(gateway.admin(), gateway.frontDoor()).withCapacity(20, Map.of())
        .withLimits(16_384, 1024, 1000);
    service = BatchService.start(settings, SqliteStore.open(dir.resolve("batch.db")), clock, false);
    api = new ApiClient(service.port());
  }

  @AfterEach
  void stop() throws Exception {
    api.close();
    service.close();
    gateway.close();
  }

  static String line(String id, String model) {
    return "{\"custom_id\":\"" + id + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\""
        + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}";
  }

  static byte[] lines(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(line("req-" + i, "m"));
    }
    return (String.join("\n", out) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  String submit(byte[] content) throws Exception {
    ApiClient.Reply file = api.upload("batch", content);
    assertThat(file.status()).isEqualTo(200);
    ApiClient.Reply batch = api.post("/v1/batches", "{\"input_file_id\":\"" + file.json().get("id").asText()
        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\",\"metadata\":{\"team\":\"eval\"}}");
    assertThat(batch.status()).isEqualTo(200);
    assertThat(batch.json().get("status").asText()).isEqualTo("validating");
    return batch.json().get("id").asText();
  }

  JsonNode batch(String id) throws Exception {
    return api.get("/v1/batches/" + id).json();
  }

  /** Reads the load once so that validation can map models to pools, then validates. */
  void validate() {
    gateway.loadOverride.set(null);
    service.dispatcher().tick();
    service.lifecycle().tick();
  }

  @Test
  void aBatchRunsFromUploadToCompletedWithOutputAndErrorFilesInOpenAisFormat() throws Exception {
    String id = submit((line("a", "m") + "\n" + line("b", "unrouted") + "\n" + line("c", "m")).getBytes(
        StandardCharsets.UTF_8));
    validate();
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("in_progress");
    assertThat(b.get("in_progress_at").asLong()).isEqualTo(clock.millis() / 1000);
    assertThat(b.get("request_counts").get("total").asInt()).isEqualTo(3);
    assertThat(b.get("request_counts").get("failed").asInt()).isEqualTo(1);

    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("completed").asInt() == 2);
    service.lifecycle().tick();
    b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("completed");
    assertThat(b.get("finalizing_at").isNull()).isFalse();
    assertThat(b.get("completed_at").isNull()).isFalse();
    assertThat(b.get("metadata").get("team").asText()).isEqualTo("eval");
    assertThat(gateway.objectives).containsOnly("batch");
    assertThat(gateway.receivedById.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));

    String out = api.get("/v1/files/" + b.get("output_file_id").asText() + "/content").text();
    List<JsonNode> outLines = new ArrayList<>();
    for (String l : out.split("\n")) {
      outLines.add(FakeGateway.JSON.readTree(l));
    }
    assertThat(outLines).extracting(n -> n.get("custom_id").asText()).containsExactly("a", "c");
    assertThat(outLines).allSatisfy(n -> {
      assertThat(n.get("id").asText()).startsWith("batch_req_");
      assertThat(n.get("response").get("status_code").asInt()).isEqualTo(200);
      assertThat(n.get("response").get("body").get("model").asText()).isEqualTo("m");
      assertThat(n.get("error").isNull()).isTrue();
    });
    JsonNode err = FakeGateway.JSON.readTree(api.get("/v1/files/" + b.get("error_file_id").asText() + "/content")
        .text().trim());
    assertThat(err.get("custom_id").asText()).isEqualTo("b");
    assertThat(err.get("response").isNull()).isTrue();
    assertThat(err.get("error").get("code").asText()).isEqualTo("model_not_found");
    assertThat(api.get("/v1/files/" + b.get("output_file_id").asText()).json().get("purpose").asText())
        .isEqualTo("batch_output");
  }

  @Test
  void theBudgetBoundsTheRequestsInFlightAndAFreshReadingCountsThem() throws Exception {
    gateway.answer = body -> null; // hold every request
    gateway.baseRunning.set(10); // 10 of 20 slots busy: D = 1 - (0.5 + 0.05) = 0.45, floor(20 x 0.45) = 9
    String id = submit(lines(30));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.held.size() == 9);
    service.dispatcher().tick(); // the reading now counts the 9: 19 of 20, past the gate
    service.dispatcher().tick();
    assertThat(service.dispatcher().inFlightTotal()).isEqualTo(9);
    assertThat(gateway.received.get()).isEqualTo(9);
    assertThat(service.dispatcher().status()).singleElement().satisfies(s -> {
      assertThat(s.budget().open()).isFalse();
      assertThat(s.inFlight()).isEqualTo(9);
    });
    gateway.releaseHeld();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.dispatcher().inFlightTotal() == 0);
    assertThat(batch(id).get("request_counts").get("completed").asInt()).isEqualTo(9);
  }

  @Test
  void a429ClosesTheBudgetUntilAFreshReadingAndTheLineIsSentAgain() throws Exception {
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    gateway.answer = body -> calls.incrementAndGet() == 1
        ? new FakeGateway.Answer(429, "{\"error\":{\"message\":\"queue_full\"}}") : FakeGateway.ok(body);
    String id = submit(lines(1));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.metrics().retriedTotal("ns/pool", "429") == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> service.dispatcher().inFlightTotal() == 0);
    assertThat(service.dispatcher().status().getFirst().throttled()).isTrue();
    service.dispatcher().tick(); // a reading asked for after the 429 reopens the budget
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("completed").asInt() == 1);
    assertThat(calls.get()).isEqualTo(2);
    assertThat(batch(id).get("request_counts").get("failed").asInt()).isZero();
  }

  @Test
  void poolFailuresAtTheGatewayCloseThePoolAndSpendNoAttempts() throws Exception {
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    int[] failures = {502, 503, 504, 502, 503, 504, 502}; // more than a line's five attempts
    gateway.answer = body -> {
      int n = calls.getAndIncrement();
      return n < failures.length ? new FakeGateway.Answer(failures[n], "upstream unavailable") : FakeGateway.ok(body);
    };
    String id = submit(lines(1));
    validate();
    for (int sent = 1; sent <= failures.length; sent++) {
      service.dispatcher().tick(); // a fresh reading reopens the pool; the line goes again
      int expected = sent;
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == expected
          && service.dispatcher().inFlightTotal() == 0);
      assertThat(service.dispatcher().status().getFirst().throttled()).as("closed until the next reading").isTrue();
    }
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("completed").asInt() == 1);
    assertThat(batch(id).get("request_counts").get("failed").asInt()).isZero();
    assertThat(service.metrics().retriedTotal("ns/pool", "502")).isEqualTo(3);
  }

  @Test
  void loadThatCannotBeReadMeansNothingIsSent() throws Exception {
    String id = submit(lines(3));
    validate();
    for (String garbage : List.of("500 down", "<html>not json</html>", "{\"pools\":[{\"pool\":\"ns/pool\"}]}")) {
      gateway.loadOverride.set(garbage);
      service.dispatcher().tick();
    }
    assertThat(service.metrics().unreadableTotal()).isEqualTo(3);
    assertThat(service.dispatcher().status().getFirst().budget().open()).isFalse();
    assertThat(gateway.received.get()).isZero();
    gateway.loadOverride.set(null);
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("completed").asInt() == 3);
  }

  @Test
  void theEppsReadTokenGoesWithEveryReading() throws Exception {
    gateway.requiredToken = "read-t0ken";
    try (LoadReader with = new LoadReader(gateway.admin(), Duration.ofSeconds(2), "read-t0ken");
        LoadReader without = new LoadReader(gateway.admin(), Duration.ofSeconds(2), null)) {
      assertThat(with.read().pools()).hasSize(1);
      assertThatThrownBy(without::read).isInstanceOf(LoadReader.Unreadable.class)
          .hasMessageContaining("401").hasMessageContaining("endpoints.eppToken");
    }
    assertThat(BatchSettings.defaults().toString()).doesNotContain("token");
  }

  @Test
  void aClientErrorIsFinalAndTheErrorFileKeepsTheGatewaysAnswer() throws Exception {
    gateway.answer = body -> new FakeGateway.Answer(400, "{\"error\":{\"message\":\"no such objective\","
        + "\"type\":\"invalid_request_error\"}}");
    String id = submit(lines(1));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("failed").asInt() == 1);
    service.lifecycle().tick();
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("completed");
    assertThat(b.get("output_file_id").isNull()).isTrue();
    JsonNode err = FakeGateway.JSON.readTree(api.get("/v1/files/" + b.get("error_file_id").asText() + "/content")
        .text().trim());
    assertThat(err.get("response").get("status_code").asInt()).isEqualTo(400);
    assertThat(err.get("response").get("body").get("error").get("message").asText()).isEqualTo("no such objective");
    assertThat(gateway.received.get()).isEqualTo(1);
  }

  @Test
  void anAnswerThatIsNotJsonIsKeptAsTextInTheOutputLine() throws Exception {
    gateway.answer = body -> new FakeGateway.Answer(200, "<html>\u0007not json");
    String id = submit(lines(1));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("completed").asInt() == 1);
    service.lifecycle().tick();
    JsonNode line = FakeGateway.JSON.readTree(api.get("/v1/files/" + batch(id).get("output_file_id").asText()
        + "/content").text().trim());
    assertThat(line.get("response").get("body").asText()).isEqualTo("<html>\u0007not json");
  }

  @Test
  void aTransientFailureOfTheLineIsRetriedAfterAPauseThenGivenUp() throws Exception {
    gateway.answer = body -> new FakeGateway.Answer(500, "{\"error\":{\"message\":\"engine crashed\"}}");
    String id = submit(lines(1));
    validate();
    for (int attempt = 1; attempt <= 5; attempt++) {
      service.dispatcher().tick();
      int expected = attempt;
      await().atMost(Duration.ofSeconds(10)).until(() -> gateway.received.get() == expected
          && service.dispatcher().inFlightTotal() == 0);
      clock.advance(Duration.ofSeconds(31)); // past the longest back-off
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(id).get("request_counts").get("failed").asInt() == 1);
    assertThat(service.metrics().retriedTotal("ns/pool", "500")).isEqualTo(4);
  }

  @Test
  void readinessIsUpWhileTheStoreWrites() throws Exception {
    ApiClient.Reply ready = api.get("/ready");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("ready").asBoolean()).isTrue();
  }

  @Test
  void aFileThatBatchesStillReadCannotBeDeletedUnderThem() throws Exception {
    ApiClient.Reply file = api.upload("batch", lines(2));
    String fileId = file.json().get("id").asText();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(api.post("/v1/batches", "{\"input_file_id\":\"" + fileId + "\",\"endpoint\":\"/v1/chat/completions\","
          + "\"completion_window\":\"24h\"}").json().get("id").asText());
    }
    ApiClient.Reply refused = api.delete("/v1/files/" + fileId);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().at("/error/code").asText()).isEqualTo("file_in_use");
    assertThat(refused.json().at("/error/message").asText()).contains("3 batches").contains(ids.getFirst());
    validate(); // every batch reads its lines from the file it kept
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      service.dispatcher().tick();
      service.lifecycle().tick();
      return ids.stream().allMatch(id -> {
        try {
          return "completed".equals(batch(id).get("status").asText());
        } catch (Exception e) {
          return false;
        }
      });
    });
    assertThat(api.delete("/v1/files/" + fileId).status()).as("once they have ended").isEqualTo(200);
    assertThat(api.get("/v1/files/" + fileId).status()).isEqualTo(404);
    ApiClient.Reply garbage = api.delete("/v1/files/%E2%80%AEfile-%22x%22");
    assertThat(garbage.status()).as("an id no file has, however odd").isEqualTo(404);
    assertThat(garbage.json().at("/error/code").asText()).isEqualTo("not_found");
  }

  @Test
  void aGatewayThatGoesAwayHoldsEveryPoolAndSpendsNoLinesAttempts() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean away = new java.util.concurrent.atomic.AtomicBoolean(true);
    gateway.answer = body -> away.get() ? FakeGateway.DROP : FakeGateway.ok(body);
    String id = submit(lines(5));
    validate();
    service.dispatcher().tick(); // the first pass sends what the budget allows: every line finds the door shut
    await().atMost(Duration.ofSeconds(10)).until(() -> service.metrics().gatewayReachable() == 0
        && service.dispatcher().inFlightTotal() == 0);
    int sentBeforeOutageSeen = gateway.received.get();
    for (int pass = 0; pass < 30; pass++) { // far past five attempts a line, with the back-off's clock moving
      clock.advance(Duration.ofSeconds(9)); // past the longest back-off between probes
      service.dispatcher().tick();
      int sent = sentBeforeOutageSeen + pass + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> gateway.received.get() == sent
          && service.dispatcher().inFlightTotal() == 0);
    }
    assertThat(gateway.received.get()).as("one probe a pass while away, never the whole budget")
        .isEqualTo(sentBeforeOutageSeen + 30);
    assertThat(batch(id).get("request_counts").get("failed").asInt()).as("no line spent its attempts").isZero();

    away.set(false);
    clock.advance(Duration.ofSeconds(9)); // past the longest back-off between probes
    service.dispatcher().tick(); // the probe goes through; the next pass sends the rest
    await().atMost(Duration.ofSeconds(10)).until(() -> service.metrics().gatewayReachable() == 1);
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      service.lifecycle().tick();
      return "completed".equals(batch(id).get("status").asText());
    });
    assertThat(batch(id).get("request_counts").get("completed").asInt()).isEqualTo(5);
    assertThat(batch(id).get("request_counts").get("failed").asInt()).isZero();
  }

  @Test
  void cancelDropsWhatIsQueuedAndWaitsForWhatIsInFlight() throws Exception {
    gateway.answer = body -> null;
    gateway.baseRunning.set(16); // floor(20 x (1 - 0.8 - 0.05)) = 3 in flight
    String id = submit(lines(8));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.held.size() == 3);
    ApiClient.Reply cancel = api.post("/v1/batches/" + id + "/cancel", "");
    assertThat(cancel.status()).isEqualTo(200);
    assertThat(cancel.json().get("status").asText()).isEqualTo("cancelling");
    assertThat(cancel.json().get("cancelling_at").asLong()).isEqualTo(clock.millis() / 1000);
    service.lifecycle().tick();
    assertThat(batch(id).get("status").asText()).isEqualTo("cancelling");
    assertThat(batch(id).get("request_counts").get("failed").asInt()).isEqualTo(5);
    gateway.releaseHeld();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.dispatcher().inFlightTotal() == 0);
    service.lifecycle().tick();
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("cancelled");
    assertThat(b.get("request_counts").get("completed").asInt()).isEqualTo(3);
    assertThat(api.get("/v1/files/" + b.get("error_file_id").asText() + "/content").text().split("\n"))
        .hasSize(5).allSatisfy(l -> assertThat(l).contains("batch_cancelled"));
    assertThat(api.post("/v1/batches/" + id + "/cancel", "").status()).isEqualTo(200); // cancelled stays cancelled
  }

  @Test
  void linesStillQueuedWhenTheWindowClosesExpire() throws Exception {
    String id = submit(lines(4));
    validate();
    gateway.loadOverride.set("500 down"); // nothing can be sent
    clock.advance(Duration.ofHours(24).plusSeconds(1));
    service.dispatcher().tick();
    service.lifecycle().tick();
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("expired");
    assertThat(b.get("expired_at").asLong()).isEqualTo(clock.millis() / 1000);
    assertThat(b.get("request_counts").get("failed").asInt()).isEqualTo(4);
    assertThat(api.get("/v1/files/" + b.get("error_file_id").asText() + "/content").text().split("\n"))
        .hasSize(4).allSatisfy(l -> assertThat(l).contains("batch_expired"));
    assertThat(api.post("/v1/batches/" + id + "/cancel", "").status()).isEqualTo(409);
  }

  @Test
  void aBatchRecordTheStoreCannotReadHoldsUpNoOtherBatch() throws Exception {
    String broken = submit(lines(1));
    String fine = submit(lines(1));
    try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("batch.db"));
        java.sql.PreparedStatement p = db
            .prepareStatement("UPDATE batches SET doc = '{\"id\": garbage' WHERE id = ?")) {
      p.setString(1, broken);
      assertThat(p.executeUpdate()).isEqualTo(1);
    }
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(fine).get("request_counts").get("completed").asInt() == 1);
    service.lifecycle().tick();
    assertThat(batch(fine).get("status").asText()).isEqualTo("completed");
    assertThat(api.get("/v1/batches/" + broken).status()).isEqualTo(500);
  }

  @Test
  void aMalformedFileFailsValidationNamingTheLine() throws Exception {
    String id = submit((line("a", "m") + "\n{\"custom_id\": oops}\n").getBytes(StandardCharsets.UTF_8));
    validate();
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("failed");
    assertThat(b.get("failed_at").isNull()).isFalse();
    JsonNode e = b.get("errors").get("data").get(0);
    assertThat(e.get("line").asInt()).isEqualTo(2);
    assertThat(e.get("message").asText()).startsWith("line 2 is not valid JSON");
    assertThat(gateway.received.get()).isZero();
  }

  @Test
  void badRequestsGetOpenAiShapedErrors() throws Exception {
    ApiClient.Reply purpose = api.upload("training", lines(1));
    assertThat(purpose.status()).isEqualTo(400);
    assertThat(purpose.json().get("error").get("message").asText()).contains("user_data", "only 'batch' files");
    assertThat(purpose.json().get("error").get("param").asText()).isEqualTo("purpose");
    assertThat(purpose.json().get("error").get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(api.upload("batch", new byte[] {(byte) 0xff, (byte) 0xfe, 'x'}).json().get("error").get("message")
        .asText()).contains("UTF-8");
    ApiClient.Reply big = api.upload("batch", new byte[20_000]);
    assertThat(big.status()).isEqualTo(413);
    assertThat(big.json().get("error").get("message").asText()).contains("limit of 16384 bytes");
    assertThat(api.post("/v1/batches", "{\"input_file_id\":\"file-nope\",\"endpoint\":\"/v1/chat/completions\","
        + "\"completion_window\":\"24h\"}").status()).isEqualTo(404);
    String file = api.upload("batch", lines(1)).json().get("id").asText();
    assertThat(api.post("/v1/batches", "{\"input_file_id\":\"" + file + "\",\"endpoint\":\"/v1/images\","
        + "\"completion_window\":\"24h\"}").json().get("error").get("param").asText()).isEqualTo("endpoint");
    assertThat(api.post("/v1/batches", "{\"input_file_id\":\"" + file + "\",\"endpoint\":\"/v1/completions\","
        + "\"completion_window\":\"1h\"}").json().get("error").get("param").asText()).isEqualTo("completion_window");
    assertThat(api.post("/v1/batches", "[not json").status()).isEqualTo(400);
    assertThat(api.post("/v1/batches", "{\"input_file_id\":\"" + file + "\",\"endpoint\":\"/v1/completions\","
        + "\"completion_window\":\"24h\",\"metadata\":{\"k\":1}}").json().get("error").get("param").asText())
        .isEqualTo("metadata");
    assertThat(api.get("/v1/batches/batch_nope").status()).isEqualTo(404);
    assertThat(api.get("/v1/files/file-nope/content").status()).isEqualTo(404);
    ApiClient.Reply unknown = api.get("/v1/nothing");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.json().get("error").get("message").asText()).contains("/v1/nothing");
    assertThat(api.get("/v1/batches?limit=0").status()).isEqualTo(400);
  }

  /** Issue 32, item 6: every answer of the batch port, errors and metrics included, carries the browser headers. */
  @Test
  void everyAnswerCarriesTheSecurityHeaders() throws Exception {
    for (ApiClient.Reply r : List.of(api.get("/metrics"), api.get("/admin/batch/status"), api.get("/v1/nothing"),
        api.get("/v1/batches"), api.post("/v1/batches", "[not json"))) {
      assertThat(r.headers().firstValue("x-content-type-options")).hasValue("nosniff");
      assertThat(r.headers().firstValue("x-frame-options")).hasValue("DENY");
      assertThat(r.headers().firstValue("content-security-policy")).hasValue(BrowserHeaders.NOTHING);
    }
  }

  @Test
  void aFilePartWithoutAFilenameIsTakenAsTheFileWhateverItsSize() throws Exception {
    byte[] content = lines(120); // over Vert.x's default 8 KiB for a form field
    assertThat(content.length).isGreaterThan(8192);
    ApiClient.Reply r = api.upload("batch", content, "");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("bytes").asInt()).isEqualTo(content.length);
    assertThat(api.get("/v1/files/" + r.json().get("id").asText() + "/content").text())
        .isEqualTo(new String(content, StandardCharsets.UTF_8));
  }

  @Test
  void finishedBatchesTheirFilesAndOldUploadsGoAfterTheRetentionButARunningBatchKeepsItsInput() throws Exception {
    String oldInput = api.upload("batch", lines(1)).json().get("id").asText();
    String loose = api.upload("batch", lines(1)).json().get("id").asText();
    String done = submit(lines(1));
    validate();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> batch(done).get("request_counts").get("completed").asInt() == 1);
    service.lifecycle().tick();
    JsonNode finished = batch(done);
    assertThat(finished.get("status").asText()).isEqualTo("completed");

    clock.advance(Duration.ofDays(30).plusHours(2));
    String running = api.post("/v1/batches", "{\"input_file_id\":\"" + oldInput + "\",\"endpoint\":"
        + "\"/v1/chat/completions\",\"completion_window\":\"24h\"}").json().get("id").asText();
    service.lifecycle().tick();
    assertThat(api.get("/v1/batches/" + done).status()).isEqualTo(404);
    assertThat(api.get("/v1/files/" + finished.get("output_file_id").asText()).status()).isEqualTo(404);
    assertThat(api.get("/v1/files/" + finished.get("input_file_id").asText()).status()).isEqualTo(404);
    assertThat(api.get("/v1/files/" + loose).status()).isEqualTo(404);
    assertThat(batch(running).get("status").asText()).isEqualTo("in_progress");
    assertThat(api.get("/v1/files/" + oldInput).status()).as("read by a running batch").isEqualTo(200);
  }

  @Test
  void aBatchThatCouldNotBeValidatedWithinItsWindowExpires() throws Exception {
    String id = submit(lines(2));
    clock.advance(Duration.ofHours(24).plusSeconds(1));
    service.lifecycle().tick(); // no load was ever read: the models cannot be mapped to pools
    JsonNode b = batch(id);
    assertThat(b.get("status").asText()).isEqualTo("expired");
    assertThat(b.get("expired_at").asLong()).isEqualTo(clock.millis() / 1000);
    assertThat(gateway.received.get()).isZero();
  }

  @Test
  void aFileCanBeDeleted() throws Exception {
    String id = api.upload("batch", lines(1)).json().get("id").asText();
    HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + service.port() + "/v1/files/" + id)).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(FakeGateway.JSON.readTree(r.body()).get("deleted").asBoolean()).isTrue();
    assertThat(api.get("/v1/files/" + id).status()).isEqualTo(404);
  }

  @Test
  void batchesListNewestFirstInPages() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(submit(lines(1)));
    }
    JsonNode page = api.get("/v1/batches?limit=2").json();
    assertThat(page.get("object").asText()).isEqualTo("list");
    assertThat(page.get("data")).extracting(n -> n.get("id").asText()).containsExactly(ids.get(2), ids.get(1));
    assertThat(page.get("has_more").asBoolean()).isTrue();
    JsonNode next = api.get("/v1/batches?limit=2&after=" + page.get("last_id").asText()).json();
    assertThat(next.get("data")).extracting(n -> n.get("id").asText()).containsExactly(ids.get(0));
    assertThat(next.get("has_more").asBoolean()).isFalse();
    JsonNode unknownAfter = api.get("/v1/batches?after=batch_nope").json();
    assertThat(unknownAfter.get("data")).isEmpty();
    assertThat(api.get("/v1/batches?limit=abc").status()).isEqualTo(400);
  }

  @Test
  void metricsAndStatusShowTheQueueAndTheBudget() throws Exception {
    gateway.answer = body -> null;
    gateway.baseRunning.set(18); // floor(20 x 0.05) = 1
    submit(lines(4));
    validate();
    clock.advance(Duration.ofSeconds(2));
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.held.size() == 1);
    String metrics = api.get("/metrics").text();
    assertThat(metrics).contains("llmgw_batch_queue_depth{pool=\"ns/pool\"} 4.0")
        .contains("llmgw_batch_oldest_queued_age_seconds{pool=\"ns/pool\"} 2.0")
        .contains("llmgw_batch_dispatched_total{pool=\"ns/pool\"} 1.0")
        .contains("llmgw_batch_budget_part{part=\"f_sys\",pool=\"ns/pool\"} 0.9");
    JsonNode status = api.get("/admin/batch/status").json();
    assertThat(status.get(0).get("pool").asText()).isEqualTo("ns/pool");
    assertThat(status.get(0).get("depth").asInt()).isEqualTo(4);
    assertThat(status.get(0).get("inFlight").asInt()).isEqualTo(1);
    gateway.releaseHeld();
  }

  /** Issue 47: a batch whose validation began three times and never ended is failed, and the service goes on. */
  @Test
  void aBatchWhoseValidationKeepsStoppingTheServiceIsFailedNotRetriedForEver() throws Exception {
    String fileId = api.upload("batch", lines(2)).json().get("id").asText();
    long now = clock.millis() / 1000;
    io.llmgw.batch.store.Batch stuck = io.llmgw.batch.store.Batch.created("batch_stuck", "/v1/chat/completions",
        fileId, "24h", Map.of(), now, now + 86_400);
    service.store().createBatch(stuck.withValidationStart().withValidationStart().withValidationStart());
    String fine = submit(lines(2));
    validate();
    JsonNode failed = batch("batch_stuck");
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.get("errors").get("data").get(0).get("code").asText()).isEqualTo("validation_interrupted");
    assertThat(failed.has("validationStarts")).as("not part of OpenAI's batch object").isFalse();
    assertThat(batch(fine).get("status").asText()).isEqualTo("in_progress");
    assertThat(service.store().batch(fine).orElseThrow().validationStarts()).isEqualTo(1);
  }
}
