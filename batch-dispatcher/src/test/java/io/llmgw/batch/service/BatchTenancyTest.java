package io.llmgw.batch.service;

import static io.llmgw.batch.service.BatchServiceTest.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.DropReason;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.dispatch.Dispatcher;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.SqliteStore;
import io.llmgw.testing.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 31: files and batches belong to the tenant whose key made them. Another tenant's list, read, content, cancel and
 * delete all get 404; each line goes to the gateway with the service's own key, for its batch's owner; the service's
 * metrics and admin paths want the read token; a line over its owner's budget waits without closing the pool.
 */
class BatchTenancyTest {
  @TempDir
  Path dir;
  FakeGateway gateway;
  BatchService service;
  ApiClient teamA;
  ApiClient teamB;
  ApiClient anonymous;

  static String sha256(String key) {
    return io.llmgw.api.keys.ApiKeys.sha256(key);
  }

  private final ManualClock clock = new ManualClock(Instant.parse("2026-11-24T12:00:00Z"));

  @BeforeEach
  void start() throws Exception {
    gateway = new FakeGateway();
    Path keys = dir.resolve("keys.yaml");
    Files.writeString(keys, "keys:\n  - {tenant: team-a, sha256: " + sha256("sk-a") + "}\n"
        + "  - {tenant: team-b, sha256: " + sha256("sk-b") + "}\n"
        + "  - {tenant: batch-service, sha256: " + sha256("sk-batch") + ", actsForOthers: true}\n");
    BatchSettings settings = BatchSettings.defaults().withListener("127.0.0.1", 0)
        .withGateway(gateway.admin(), gateway.frontDoor()).withCapacity(20, Map.of())
        .withAccess(new BatchSettings.Access(keys, null, "sk-batch", "read-token-1"));
    service = BatchService.start(settings, SqliteStore.open(dir.resolve("batch.db")), clock, false);
    teamA = new ApiClient(service.port(), "sk-a");
    teamB = new ApiClient(service.port(), "sk-b");
    anonymous = new ApiClient(service.port());
  }

  @AfterEach
  void stop() throws Exception {
    teamA.close();
    teamB.close();
    anonymous.close();
    service.close();
    gateway.close();
  }

  String submit(ApiClient as) throws Exception {
    String file = as.upload("batch", lines(2)).json().get("id").asText();
    return as.post("/v1/batches", "{\"input_file_id\":\"" + file
        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}").json().get("id").asText();
  }

  @Test
  void anotherTenantCannotListReadCancelOrDeleteWhatIsNotItsOwn() throws Exception {
    ApiClient.Reply upload = teamA.upload("batch", lines(2));
    assertThat(upload.status()).isEqualTo(200);
    String file = upload.json().get("id").asText();
    String batch = teamA.post("/v1/batches", "{\"input_file_id\":\"" + file
        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}").json().get("id").asText();

    assertThat(teamB.get("/v1/files/" + file).status()).isEqualTo(404);
    assertThat(teamB.get("/v1/files/" + file + "/content").status()).isEqualTo(404);
    assertThat(teamB.get("/v1/batches/" + batch).status()).isEqualTo(404);
    assertThat(teamB.post("/v1/batches/" + batch + "/cancel", "").status()).isEqualTo(404);
    assertThat(teamB.post("/v1/batches", "{\"input_file_id\":\"" + file
        + "\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}").status())
        .as("another tenant's file as a batch's input").isEqualTo(404);
    assertThat(teamB.get("/v1/batches").json().get("data")).isEmpty();
    assertThat(teamB.get("/v1/files").json().get("data")).isEmpty();
    assertThat(teamB.delete("/v1/files/" + file).status()).isEqualTo(404);

    assertThat(teamA.get("/v1/files").json().get("data")).extracting(n -> n.get("id").asText()).containsExactly(file);
    assertThat(teamA.get("/v1/batches").json().get("data")).extracting(n -> n.get("id").asText())
        .containsExactly(batch);
    assertThat(teamA.get("/v1/files/" + file + "/content").status()).as("still there, still its owner's")
        .isEqualTo(200);
    assertThat(teamA.post("/v1/batches/" + batch + "/cancel", "").status()).isEqualTo(200);
  }

  @Test
  void aCallerWithoutAKnownKeyIs401AndTheServicesOwnPathsWantTheReadToken() throws Exception {
    ApiClient.Reply none = anonymous.get("/v1/files");
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.json().get("error").get("code").asText()).isEqualTo("invalid_api_key");
    try (ApiClient wrong = new ApiClient(service.port(), "sk-nope")) {
      assertThat(wrong.upload("batch", lines(1)).status()).isEqualTo(401);
    }
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + service.port();
    for (String path : new String[] {"/metrics", "/admin/batch/status"}) {
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).as(path).isEqualTo(401);
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + path)).header("authorization",
          "Bearer read-token-1").build(), HttpResponse.BodyHandlers.ofString()).statusCode()).as(path).isEqualTo(200);
    }
    assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).as("the probe needs nothing").isEqualTo(200);
  }

  @Test
  void eachLineGoesWithTheServicesKeyForItsBatchsOwnerAndTheBatchReportsItsUsage() throws Exception {
    gateway.answer = body -> new FakeGateway.Answer(200, "{\"id\":\"c\",\"choices\":[],\"usage\":"
        + "{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":10}}");
    String a = submit(teamA);
    String b = submit(teamB);
    service.dispatcher().tick();
    service.lifecycle().tick();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.credentials.size() == 4);
    assertThat(gateway.credentials).containsExactlyInAnyOrder("Bearer sk-batch|team-a", "Bearer sk-batch|team-a",
        "Bearer sk-batch|team-b", "Bearer sk-batch|team-b");
    await().atMost(Duration.ofSeconds(10)).until(() -> status(teamA, a).get("request_counts").get("completed")
        .asInt() == 2 && status(teamB, b).get("request_counts").get("completed").asInt() == 2);
    service.lifecycle().tick();
    JsonNode done = status(teamA, a);
    assertThat(done.get("status").asText()).isEqualTo("completed");
    assertThat(done.get("usage").get("input_tokens").asLong()).as("OpenAI's batch usage").isEqualTo(14);
    assertThat(done.get("usage").get("output_tokens").asLong()).isEqualTo(6);
    assertThat(done.get("usage").get("total_tokens").asLong()).isEqualTo(20);
    assertThat(teamA.get("/v1/files/" + done.get("output_file_id").asText()).status()).isEqualTo(200);
    assertThat(teamB.get("/v1/files/" + done.get("output_file_id").asText()).status())
        .as("the output file is the batch owner's").isEqualTo(404);
  }

  @Test
  void aLineOverItsOwnersBudgetWaitsAndOneThatNoBudgetTakesEndsInTheErrorFile() throws Exception {
    gateway.answer = body -> new FakeGateway.Answer(429, "{\"error\":{\"message\":\"tenant 'team-a' has spent its "
        + "tokens for the minute\",\"type\":\"rate_limit_error\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}")
        .droppedFor(DropReason.TENANT_BUDGET);
    String a = submit(teamA);
    service.dispatcher().tick();
    service.lifecycle().tick();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.received.get() >= 2);
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + service.port() + "/metrics")).header("authorization", "Bearer read-token-1").build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(metrics).as("requeued for its owner's budget, the pool left open").contains("429_budget");
    assertThat(status(teamA, a).get("request_counts").get("failed").asInt()).as("it waits, it has not failed")
        .isZero();

    gateway.answer = body -> new FakeGateway.Answer(429, "{\"error\":{\"message\":\"more than tenant 'team-a' may "
        + "spend\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}")
        .droppedFor(DropReason.TENANT_QUOTA);
    String never = submit(teamA);
    service.lifecycle().tick();
    for (int i = 0; i < 3; i++) {
      service.dispatcher().tick();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> status(teamA, never).get("request_counts").get("failed")
        .asInt() == 2);
  }

  /**
   * Issue 53: a gateway that refuses the service's own key (a keys file without it, or without actsForOthers) would
   * fail every line alike, and the batch would end "completed" with all of them failed. Every pool waits instead, no
   * line spends an attempt, and one ERROR line and {@code /ready} say what to mend, until a line goes through.
   */
  @Test
  void aGatewayThatRefusesTheServicesKeyHoldsEveryLineAndSaysWhatToMendOnReady() throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger(Dispatcher.class);
    logs.start();
    logger.addAppender(logs);
    AtomicBoolean refusing = new AtomicBoolean(true);
    gateway.answer = body -> refusing.get() ? new FakeGateway.Answer(401, "{\"error\":{\"message\":\"Incorrect API "
        + "key provided.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}\u0007")
        : FakeGateway.ok(body);
    String a = submit(teamA);
    service.dispatcher().tick();
    service.lifecycle().tick();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.metrics().gatewayReachable() == 0
        && service.dispatcher().inFlightTotal() == 0);
    for (int pass = 0; pass < 8; pass++) { // past the 5 attempts a line has, one probe a pass
      clock.advance(Duration.ofSeconds(9));
      service.dispatcher().tick();
      await().atMost(Duration.ofSeconds(10)).until(() -> service.dispatcher().inFlightTotal() == 0);
    }
    assertThat(status(teamA, a).get("request_counts").get("failed").asInt()).as("no line spent its attempts")
        .isZero();
    JsonNode ready = ready();
    assertThat(ready.get("ready").asBoolean()).as("every replica would share it; uploads lose nothing").isTrue();
    assertThat(ready.get("problems").get(0).asText())
        .contains("the gateway refuses this service's key", "--gateway-key-file", "actsForOthers")
        .as("an open path: no address, nothing the gateway said").doesNotContain("127.0.0.1", "Incorrect API key");
    logger.detachAppender(logs);
    assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.ERROR).singleElement()
        .extracting(ILoggingEvent::getFormattedMessage).asString()
        .contains("--gateway-key-file", "answered 401", "Incorrect API key provided.")
        .as("the gateway's words quoted, printable only").doesNotContain("\u0007");

    refusing.set(false); // the keys file mended
    clock.advance(Duration.ofSeconds(9));
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.metrics().gatewayReachable() == 1);
    assertThat(ready().has("problems")).isFalse();
    service.dispatcher().tick();
    await().atMost(Duration.ofSeconds(10)).until(() -> status(teamA, a).get("request_counts").get("completed")
        .asInt() == 2);
  }

  JsonNode ready() throws Exception {
    return FakeGateway.JSON.readTree(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + service.port() + "/ready")).build(), HttpResponse.BodyHandlers.ofString()).body());
  }

  static JsonNode status(ApiClient as, String batch) throws Exception {
    return as.get("/v1/batches/" + batch).json();
  }
}
