package io.llmgw.batch.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * A small OpenAI Batch API client over plain HTTP, for the quickstart and the benches (tests use the official SDK):
 * upload a JSONL file, create a batch, poll it, read a file.
 */
public final class BatchClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> DONE = Set.of("completed", "failed", "expired", "cancelled");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String bearer;

  /** @param baseUrl the gateway's (or the batch service's) base URL, e.g. http://127.0.0.1:8080 */
  public BatchClient(String baseUrl) {
    this(baseUrl, null);
  }

  /** @param bearer the API key sent as {@code Authorization: Bearer}, naming the tenant; null for none */
  public BatchClient(String baseUrl, String bearer) {
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.bearer = bearer;
  }

  /** Uploads {@code jsonl} with purpose {@code batch}; returns the file id. */
  public String upload(String filename, byte[] jsonl) throws IOException, InterruptedException {
    String boundary = "llmgw-" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream(jsonl.length + 512);
    body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
        + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename + "\"\r\n"
        + "Content-Type: application/jsonl\r\n\r\n").getBytes(StandardCharsets.UTF_8));
    body.writeBytes(jsonl);
    body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return call(HttpRequest.newBuilder(URI.create(base + "/v1/files"))
        .header("content-type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))).get("id").asText();
  }

  /** Creates a batch over an uploaded file; returns its id. */
  public String create(String fileId, String endpoint) throws IOException, InterruptedException {
    String body = JSON.createObjectNode().put("input_file_id", fileId).put("endpoint", endpoint)
        .put("completion_window", "24h").toString();
    return call(HttpRequest.newBuilder(URI.create(base + "/v1/batches")).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))).get("id").asText();
  }

  public JsonNode batch(String id) throws IOException, InterruptedException {
    return call(HttpRequest.newBuilder(URI.create(base + "/v1/batches/" + id)).GET());
  }

  public String content(String fileId) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(authorized(HttpRequest.newBuilder(URI.create(base + "/v1/files/" + fileId
        + "/content"))).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET file " + fileId + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** Polls the batch until it reaches a final status or {@code timeout} passes; returns the last answer. */
  public JsonNode awaitDone(String id, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode b = batch(id);
      if (DONE.contains(b.path("status").asText()) || System.nanoTime() > deadline) {
        return b;
      }
      Thread.sleep(200); // polling a condition with a deadline
    }
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder r) {
    return bearer == null ? r : r.header("authorization", "Bearer " + bearer);
  }

  private JsonNode call(HttpRequest.Builder r) throws IOException, InterruptedException {
    HttpResponse<String> resp = http.send(authorized(r).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (resp.statusCode() != 200) {
      throw new IOException(resp.request().method() + " " + resp.request().uri().getPath() + " answered "
          + resp.statusCode() + ": " + resp.body());
    }
    return JSON.readTree(resp.body());
  }

  @Override
  public void close() {
    http.close();
  }
}
