package io.llmgw.cli.e2e;

import static io.llmgw.cli.e2e.Gateways.BASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.core.http.HttpResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.models.batches.Batch;
import com.openai.models.batches.BatchCreateParams;
import com.openai.models.batches.BatchListParams;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FileObject;
import com.openai.models.files.FilePurpose;
import io.llmgw.api.HttpGet;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.cli.StatusCommandAccess;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK's files and batches calls → dev proxy → batch service, whose lines go back through the dev
 * proxy → EPP (as sheddable work under the "batch" objective) → simulated pods on 127.0.0.131-132.
 */
class BatchEndToEndTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir
  static Path dir;
  static Rig rig;
  static BatchService batches;
  static OpenAIClient client;

  @BeforeAll
  static void start() throws Exception {
    SimConfig sim = SimConfig.builder().adapters(Gateways.ADAPTERS).loras(2, 2).build();
    SimPods pods = SimPods.start(sim, 2, "127.0.0.131", 8000);
    Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, List.of(BASE, "sql-lora"));
    Files.writeString(config, Files.readString(config) + """
        ---
        apiVersion: inference.networking.x-k8s.io/v1alpha2
        kind: InferenceObjective
        metadata:
          name: batch
        spec:
          priority: -100
          poolRef:
            name: sim-pool
        """);
    int batchPort = LoopbackPorts.free();
    rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts(),
        ProxySettings.defaults().withListener("127.0.0.1", 0).withBatchService("127.0.0.1:" + batchPort));
    batches = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", batchPort)
        .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://127.0.0.1:" + rig.proxyPort())
        .withStore("sqlite:" + dir.resolve("batch.db")), Clock.systemUTC());
    client = Gateways.client(rig.proxyPort());
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    batches.close();
    rig.close();
  }

  static String line(String id, String model) {
    return "{\"custom_id\":\"" + id + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\""
        + model + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"Which tables hold orders?\"}]}}";
  }

  static FileObject upload(String content) {
    return client.files().create(FileCreateParams.builder().file(content.getBytes(StandardCharsets.UTF_8))
        .purpose(FilePurpose.BATCH).build());
  }

  static Batch create(FileObject file) {
    return client.batches().create(BatchCreateParams.builder().inputFileId(file.id())
        .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
        .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
  }

  static List<JsonNode> lines(String fileId) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (HttpResponse r = client.files().content(fileId); InputStream in = r.body()) {
      for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        out.add(JSON.readTree(l));
      }
    }
    return out;
  }

  @Test
  void anOpenAiClientSubmitsABatchPollsItAndReadsItsOutputAndErrorFiles() throws Exception {
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      in.append(line("req-" + i, i % 2 == 0 ? BASE : "sql-lora")).append('\n');
    }
    in.append(line("nobody", "no-such-model")).append('\n');
    FileObject file = upload(in.toString());
    assertThat(file.purpose()).isEqualTo(FileObject.Purpose.BATCH);
    assertThat(client.files().retrieve(file.id()).bytes()).isEqualTo(in.length());
    Batch created = create(file);
    assertThat(created.status()).isEqualTo(Batch.Status.VALIDATING);

    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> client.batches().retrieve(created.id()).status().equals(Batch.Status.COMPLETED));
    Batch done = client.batches().retrieve(created.id());
    assertThat(done.requestCounts().orElseThrow().total()).isEqualTo(31);
    assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(30);
    assertThat(done.requestCounts().orElseThrow().failed()).isEqualTo(1);
    assertThat(done.inProgressAt()).isPresent();
    assertThat(done.completedAt()).isPresent();

    List<JsonNode> out = lines(done.outputFileId().orElseThrow());
    Map<String, Integer> perId = new HashMap<>();
    out.forEach(l -> perId.merge(l.get("custom_id").asText(), 1, Integer::sum));
    assertThat(perId).hasSize(30).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
    assertThat(out).allSatisfy(l -> {
      assertThat(l.get("response").get("status_code").asInt()).isEqualTo(200);
      JsonNode body = l.get("response").get("body");
      assertThat(body.get("object").asText()).isEqualTo("chat.completion");
      assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(4);
    });
    assertThat(out).filteredOn(l -> l.get("custom_id").asText().equals("req-1")).singleElement()
        .satisfies(l -> assertThat(l.get("response").get("body").get("model").asText()).isEqualTo("sql-lora"));
    assertThat(lines(done.errorFileId().orElseThrow())).singleElement().satisfies(l -> {
      assertThat(l.get("custom_id").asText()).isEqualTo("nobody");
      assertThat(l.get("error").get("code").asText()).isEqualTo("model_not_found");
    });
    assertThat(batches.metrics().dispatchedTotal("default/sim-pool")).isGreaterThanOrEqualTo(30);

    String status = StatusCommandAccess.run("127.0.0.1:" + rig.epp().metricsPort(), "127.0.0.1:" + batches.port());
    assertThat(status).contains("BATCH POOL").containsPattern("default/sim-pool +0 +0s +0 +0\\.9\\d .* 128 sending"); // 2 pods × 64 slots
  }

  /**
   * Issue 27: the front door goes away mid-batch (its proxy stopped, the EPP still answering /admin/load) and comes back
   * on the same port. Every line completes once, none fails; the lines sent into the outage spent no attempts.
   */
  @Test
  void aBatchOutlivesItsFrontDoorGoingAwayAndComingBack() throws Exception {
    int frontPort = LoopbackPorts.free();
    ProxySettings front = ProxySettings.defaults().withListener("127.0.0.1", frontPort)
        .withEpp("127.0.0.1", rig.epp().grpcPort());
    DevProxy door = DevProxy.start(front);
    int port = LoopbackPorts.free();
    try (BatchService service = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", port)
        .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://127.0.0.1:" + frontPort)
        .withStore("sqlite:" + dir.resolve("outage.db")), Clock.systemUTC())) {
      OpenAIClient direct = Gateways.client(port);
      StringBuilder in = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        in.append(line("o-" + i, i % 2 == 0 ? BASE : "sql-lora")).append('\n');
      }
      FileObject file = direct.files().create(FileCreateParams.builder()
          .file(in.toString().getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
      door.close(); // the proxy stops before the first line goes out
      Batch created = direct.batches().create(BatchCreateParams.builder().inputFileId(file.id())
          .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
          .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
      await().atMost(Duration.ofSeconds(30)).until(() -> service.metrics().gatewayReachable() == 0);
      String pool = service.dispatcher().lastReading().pools().getFirst().pool();
      await().atMost(Duration.ofSeconds(30)).until(() -> service.dispatcher().inFlightTotal() == 0);
      double burst = service.metrics().retriedTotal(pool, "unreachable");
      // then one probe at a time, always the earliest line: with the burst, five sends of one line into the outage,
      // as many as a line has attempts (0.5 + 1 + 2 + 4 s of back-off)
      await().atMost(Duration.ofSeconds(30))
          .until(() -> service.metrics().retriedTotal(pool, "unreachable") >= burst + 4);
      assertThat(direct.batches().retrieve(created.id()).requestCounts().orElseThrow().failed()).isZero();

      door = DevProxy.start(front); // back on the same port
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> direct.batches().retrieve(created.id()).status().equals(Batch.Status.COMPLETED));
      assertEveryLineOnce(direct, created.id(), 200);
      assertThat(service.metrics().gatewayReachable()).isEqualTo(1);
    } finally {
      door.close();
    }
  }

  /**
   * Issue 27: the EPP restarts mid-batch (drained, then started again on the same ports), as in a rolling restart of
   * one replica. While /admin/load does not answer nothing is sent, and afterwards every line completes once.
   */
  @Test
  void aBatchOutlivesItsEppRestarting() throws Exception {
    int grpc = LoopbackPorts.free();
    int metrics = LoopbackPorts.free();
    EppSettings s = EppSettings.defaults(dir.resolve("pool.yaml")).onLoopbackEphemeralPorts();
    EppSettings fixed = s.withListen(s.listen().on("127.0.0.1", grpc, 0, metrics)
        .withStopping(Duration.ofMillis(200), Duration.ofSeconds(5)));
    Epp[] epp = {Epp.start(fixed, Clock.systemUTC())};
    int frontPort = LoopbackPorts.free();
    int port = LoopbackPorts.free();
    try (DevProxy door = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", frontPort)
        .withEpp("127.0.0.1", grpc));
        BatchService service = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", port)
            .withGateway("127.0.0.1:" + metrics, "http://127.0.0.1:" + frontPort)
            .withStore("sqlite:" + dir.resolve("epp-restart.db")), Clock.systemUTC())) {
      OpenAIClient direct = Gateways.client(port);
      StringBuilder in = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        in.append(line("r-" + i, BASE)).append('\n');
      }
      FileObject file = direct.files().create(FileCreateParams.builder()
          .file(in.toString().getBytes(StandardCharsets.UTF_8)).purpose(FilePurpose.BATCH).build());
      Batch created = direct.batches().create(BatchCreateParams.builder().inputFileId(file.id())
          .endpoint(BatchCreateParams.Endpoint.V1_CHAT_COMPLETIONS)
          .completionWindow(BatchCreateParams.CompletionWindow._24H).build());
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
          .until(() -> direct.batches().retrieve(created.id()).requestCounts().map(c -> c.completed() >= 20)
              .orElse(false));
      epp[0].drainAndClose();
      long atRestart = direct.batches().retrieve(created.id()).requestCounts().orElseThrow().completed();
      assertThat(atRestart).as("the restart falls mid-batch").isLessThan(200);
      epp[0] = Epp.start(fixed, Clock.systemUTC()); // the same ports
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> direct.batches().retrieve(created.id()).status().equals(Batch.Status.COMPLETED));
      assertEveryLineOnce(direct, created.id(), 200);
    } finally {
      epp[0].close();
    }
  }

  /** The batch completed with every one of its {@code lines} lines in the output file exactly once, none failed. */
  static void assertEveryLineOnce(OpenAIClient direct, String batchId, int lines) throws Exception {
    Batch done = direct.batches().retrieve(batchId);
    assertThat(done.requestCounts().orElseThrow().completed()).isEqualTo(lines);
    assertThat(done.requestCounts().orElseThrow().failed()).isZero();
    Map<String, Integer> perId = new HashMap<>();
    try (HttpResponse r = direct.files().content(done.outputFileId().orElseThrow()); InputStream out = r.body()) {
      for (String l : new String(out.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        perId.merge(JSON.readTree(l).get("custom_id").asText(), 1, Integer::sum);
      }
    }
    assertThat(perId).hasSize(lines).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
  }

  /**
   * Issue 53: a dev proxy started without {@code --batch-service} answers the Files and Batches API itself, so clients
   * cannot upload. The batch service, asking through its front door, names that on {@code /ready} until the proxy is
   * given its address; this test's own proxy, which has it, passes.
   */
  @Test
  void aFrontDoorWithoutTheBatchRoutesIsNamedOnTheServicesReady() throws Exception {
    batches.frontDoorRoutes().check();
    assertThat(batches.frontDoorRoutes().problem()).as("the rig's proxy routes them here").isNull();
    int batchPort = LoopbackPorts.free();
    try (DevProxy bare = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpp("127.0.0.1", rig.epp().grpcPort()));
        BatchService behind = BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", batchPort)
            .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://127.0.0.1:" + bare.port())
            .withStore("sqlite:" + dir.resolve("bare.db")), Clock.systemUTC())) {
      behind.frontDoorRoutes().check();
      JsonNode ready = JSON.readTree(new HttpGet(Duration.ofSeconds(5), 1 << 16)
          .get("http://127.0.0.1:" + batchPort + "/ready", null, null).body());
      assertThat(ready.get("ready").asBoolean()).isTrue();
      assertThat(ready.get("problems").toString()).contains("does not send /v1/files and /v1/batches to a batch "
          + "service (it answered HTTP 404 itself)", "--batch-service");
    }
  }

  @Test
  void statusSaysWhenNoBatchServiceAnswers() {
    assertThat(StatusCommandAccess.run("127.0.0.1:" + rig.epp().metricsPort(), "127.0.0.1:1"))
        .contains("BATCH: no batch service answered at 127.0.0.1:1");
  }

  @Test
  void aMalformedFileFailsAndTheSdkReadsTheLineThatFailedIt() {
    Batch b = create(upload(line("a", BASE) + "\n{\"custom_id\":\n"));
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> client.batches().retrieve(b.id()).status().equals(Batch.Status.FAILED));
    var error = client.batches().retrieve(b.id()).errors().orElseThrow().data().orElseThrow().getFirst();
    assertThat(error.line()).contains(2L);
    assertThat(error.message().orElseThrow()).startsWith("line 2 is not valid JSON");
  }

  @Test
  void listingCancelAndErrorsWorkThroughTheSdk() {
    FileObject file = upload(line("x", BASE) + "\n");
    Batch one = create(file);
    Batch two = create(file);
    var page = client.batches().list(BatchListParams.builder().limit(1).build());
    assertThat(page.data()).extracting(Batch::id).containsExactly(two.id());
    assertThat(page.hasNextPage()).isTrue();
    assertThat(page.nextPage().data()).extracting(Batch::id).containsExactly(one.id());
    Batch cancelled = client.batches().cancel(two.id());
    assertThat(cancelled.status()).isIn(Batch.Status.CANCELLING, Batch.Status.CANCELLED,
        Batch.Status.COMPLETED);
    assertThatThrownBy(() -> client.batches().retrieve("batch_nope")).isInstanceOf(NotFoundException.class);
    // issue 53: a file of another purpose OpenAI defines is stored, and refused as a batch's input naming why
    FileObject tuning = client.files().create(FileCreateParams.builder().file("x".getBytes(StandardCharsets.UTF_8))
        .purpose(FilePurpose.FINE_TUNE).build());
    assertThat(tuning.purpose()).isEqualTo(FileObject.Purpose.FINE_TUNE);
    assertThatThrownBy(() -> create(tuning)).isInstanceOf(BadRequestException.class)
        .hasMessageContaining("purpose 'fine-tune'").hasMessageContaining("purpose 'batch'");
  }
}
