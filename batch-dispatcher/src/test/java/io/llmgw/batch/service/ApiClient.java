package io.llmgw.batch.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Raw HTTP calls to the batch API, for the shapes and status codes an SDK would hide. */
final class ApiClient implements AutoCloseable {
  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;
  /** Sent as {@code Authorization: Bearer} on every call, or null. */
  private final String key;

  record Reply(int status, JsonNode json, String text, java.net.http.HttpHeaders headers) {}

  ApiClient(int port) {
    this(port, null);
  }

  ApiClient(int port, String key) {
    this.base = "http://127.0.0.1:" + port;
    this.key = key;
  }

  Reply upload(String purpose, byte[] content) throws Exception {
    return upload(purpose, content, "; filename=\"in.jsonl\"");
  }

  /** @param filename the Content-Disposition's filename parameter, or "" to send the file as a plain field */
  Reply upload(String purpose, byte[] content, String filename) throws Exception {
    String boundary = "llmgw-test-boundary";
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\n" + purpose + "\r\n")
        .getBytes(StandardCharsets.UTF_8));
    body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"" + filename + "\r\n"
        + "Content-Type: application/jsonl\r\n\r\n").getBytes(StandardCharsets.UTF_8));
    body.write(content);
    body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return send(HttpRequest.newBuilder(URI.create(base + "/v1/files"))
        .header("content-type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build());
  }

  Reply post(String path, String json) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build());
  }

  Reply delete(String path) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE().build());
  }

  Reply get(String path) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET().build());
  }

  private Reply send(HttpRequest r) throws Exception {
    if (key != null) {
      r = HttpRequest.newBuilder(r, (name, value) -> true).header("authorization", "Bearer " + key).build();
    }
    HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
    JsonNode json = null;
    try {
      json = FakeGateway.JSON.readTree(resp.body());
    } catch (Exception e) {
      // not JSON (file content): the text is there
    }
    return new Reply(resp.statusCode(), json, resp.body(), resp.headers());
  }

  @Override
  public void close() {
    http.close();
  }
}
