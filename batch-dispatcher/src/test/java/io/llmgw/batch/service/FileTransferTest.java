package io.llmgw.batch.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.SqliteStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Uploads and downloads bigger than a piece of the store (issue 27, item 4) go through the real HTTP API: byte for
 * byte, with the length announced, and an upload that is not UTF-8 leaves nothing behind wherever the bad byte is.
 */
class FileTransferTest {
  @TempDir
  Path dir;
  FakeGateway gateway;
  BatchService service;
  ApiClient api;

  @BeforeEach
  void start() throws Exception {
    gateway = new FakeGateway();
    BatchSettings settings = BatchSettings.defaults().withListener("127.0.0.1", 0)
        .withGateway(gateway.admin(), gateway.frontDoor()).withLimits(8 << 20, 16_384, 100_000);
    service = BatchService.start(settings, SqliteStore.open(dir.resolve("batch.db")), Clock.systemUTC(), false);
    api = new ApiClient(service.port());
  }

  @AfterEach
  void stop() throws Exception {
    api.close();
    service.close();
    gateway.close();
  }

  /** About 2.7 pieces of JSON Lines whose multi-byte characters fall across the pieces' ends. */
  static byte[] bigText() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < BatchStore.CONTENT_PIECE * 9 / 4; i++) {
      text.append("{\"custom_id\":\"r").append(i).append("\",\"text\":\"é€𝄞\"}\n");
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aFileOfSeveralPiecesGoesInAndComesOutByteForByteWithItsLength() throws Exception {
    byte[] content = bigText();
    ApiClient.Reply up = api.upload("batch", content);
    assertThat(up.status()).isEqualTo(200);
    assertThat(up.json().get("bytes").asLong()).isEqualTo(content.length);
    String id = up.json().get("id").asText();
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<byte[]> down = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port()
          + "/v1/files/" + id + "/content")).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(down.statusCode()).isEqualTo(200);
      assertThat(down.headers().firstValueAsLong("content-length")).hasValue(content.length);
      assertThat(down.headers().firstValue("content-type")).hasValue("application/jsonl");
      assertThat(Arrays.equals(down.body(), content)).as("the same bytes").isTrue();
    }
  }

  /** Each download is one chain of reads: concurrent ones neither share nor skip pieces. */
  @Test
  void eightConcurrentDownloadsEachGetTheWholeFile() throws Exception {
    byte[] content = bigText();
    String id = api.upload("batch", content).json().get("id").asText();
    try (HttpClient http = HttpClient.newHttpClient()) {
      List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> downloads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        downloads.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port()
            + "/v1/files/" + id + "/content")).build(), HttpResponse.BodyHandlers.ofByteArray()));
      }
      for (var d : downloads) {
        assertThat(Arrays.equals(d.get(60, java.util.concurrent.TimeUnit.SECONDS).body(), content)).isTrue();
      }
    }
  }

  @Test
  void anUploadThatIsNotUtf8IsRefusedWhereverTheBadByteIsAndLeavesNoPieces() throws Exception {
    byte[] content = bigText();
    byte[] badLater = content.clone();
    badLater[BatchStore.CONTENT_PIECE + 5] = (byte) 0xff; // in the second piece
    byte[] cutAtTheEnd = Arrays.copyOf(content, content.length + 2);
    cutAtTheEnd[content.length] = (byte) 0xe2; // the first two bytes of '€', never finished
    cutAtTheEnd[content.length + 1] = (byte) 0x82;
    for (byte[] bad : new byte[][] {badLater, cutAtTheEnd}) {
      ApiClient.Reply r = api.upload("batch", bad);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.json().get("error").get("message").asText()).contains("UTF-8");
    }
    assertThat(service.store().files()).isEmpty();
    assertThat(countPieces()).isZero();
  }

  private long countPieces() throws Exception {
    try (var db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("batch.db"));
        var r = db.createStatement().executeQuery("SELECT count(*) FROM file_pieces")) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * Issue 53: every purpose OpenAI's Files API accepts is stored (an SDK may upload for any), byte for byte, text or
   * not; only a {@code batch} file is a batch's input, and using another says why.
   */
  @Test
  void filesOfEveryOpenAiPurposeAreStoredAsTheyCameAndOnlyBatchFilesStartABatch() throws Exception {
    byte[] image = {(byte) 0x89, 'P', 'N', 'G', 0, (byte) 0xff, (byte) 0xfe};
    ApiClient.Reply stored = api.upload("user_data", image);
    assertThat(stored.status()).as(stored.text()).isEqualTo(200);
    assertThat(stored.json().get("purpose").asText()).isEqualTo("user_data");
    assertThat(stored.json().get("bytes").asLong()).isEqualTo(image.length);
    String id = stored.json().get("id").asText();
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<byte[]> down = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port()
          + "/v1/files/" + id + "/content")).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(down.headers().firstValue("content-type")).hasValue("application/octet-stream");
      assertThat(Arrays.equals(down.body(), image)).as("the same bytes").isTrue();
    }
    assertThat(api.get("/v1/files?purpose=user_data").json().get("data")).singleElement()
        .satisfies(f -> assertThat(f.get("id").asText()).isEqualTo(id));
    for (String p : List.of("assistants", "fine-tune", "vision", "evals")) {
      assertThat(api.upload(p, BatchServiceTest.lines(1)).status()).as(p).isEqualTo(200);
    }
    ApiClient.Reply refused = api.post("/v1/batches", "{\"input_file_id\":\"" + id + "\",\"endpoint\":"
        + "\"/v1/responses\",\"completion_window\":\"24h\"}");
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.json().get("error").get("param").asText()).isEqualTo("input_file_id");
    assertThat(refused.json().get("error").get("message").asText()).contains("'user_data'", "purpose 'batch'");
    ApiClient.Reply moderations = api.post("/v1/batches", "{\"input_file_id\":\"" + id + "\",\"endpoint\":"
        + "\"/v1/moderations\",\"completion_window\":\"24h\"}");
    assertThat(moderations.json().get("error").get("message").asText()).contains("/v1/responses", "model servers");
  }
}
