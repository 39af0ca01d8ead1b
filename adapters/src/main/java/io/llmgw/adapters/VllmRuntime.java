package io.llmgw.adapters;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * vLLM's runtime LoRA API: {@code POST /v1/load_lora_adapter} and {@code /v1/unload_lora_adapter}. A 400
 * saying the adapter is already loaded means another gateway replica (or an operator) got there first; the load then
 * completes once the server lists the adapter in {@code /v1/models}, so every replica routes only to a usable copy.
 */
public final class VllmRuntime implements AdapterRuntime {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(100);

  private final HttpClient http;
  private final Duration timeout;

  /** @param timeout per HTTP call, and for an already-running load to show up in the model list */
  public VllmRuntime(Duration timeout) {
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    this.timeout = timeout;
  }

  @Override
  public CompletableFuture<Void> load(String address, String adapter, String source) {
    return load(address, adapter, source, System.nanoTime() + timeout.toNanos());
  }

  /**
   * vLLM answers 400 "already loaded" while another load of the same adapter runs (another EPP replica's): until the
   * adapter is listed, the load is asked for again, so that when the other load fails this one fails with its error
   * at once rather than waiting for the timeout.
   */
  private CompletableFuture<Void> load(String address, String adapter, String source, long deadline) {
    String body = json(Map.of("lora_name", adapter, "lora_path", source));
    return post(address, adapter, "/v1/load_lora_adapter", body).thenCompose(r -> {
      if (r.statusCode() == 200) {
        return CompletableFuture.completedFuture(null);
      }
      if (r.statusCode() == 400 && r.body().contains("already")) {
        return listed(address, adapter).thenCompose(listed -> {
          if (listed) {
            return CompletableFuture.completedFuture(null);
          }
          if (System.nanoTime() > deadline) {
            throw new LoadFailure(adapter, address, "another load of it on this server did not finish within "
                + timeout);
          }
          Executor later = CompletableFuture.delayedExecutor(POLL.toMillis(), TimeUnit.MILLISECONDS);
          return CompletableFuture.supplyAsync(() -> null, later)
              .thenCompose(x -> load(address, adapter, source, deadline));
        });
      }
      throw new LoadFailure(adapter, address, "HTTP " + r.statusCode() + ": " + r.body().strip());
    });
  }

  @Override
  public CompletableFuture<Void> unload(String address, String adapter) {
    return post(address, adapter, "/v1/unload_lora_adapter", json(Map.of("lora_name", adapter))).thenAccept(r -> {
      if (r.statusCode() != 200 && r.statusCode() != 404) {
        throw new LoadFailure(adapter, address, "HTTP " + r.statusCode() + ": " + r.body().strip());
      }
    });
  }

  private CompletableFuture<Boolean> listed(String address, String adapter) {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + address + "/v1/models")).timeout(timeout).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> r.statusCode() == 200 && lists(r.body(), adapter));
  }

  private static boolean lists(String modelsJson, String adapter) {
    try {
      for (JsonNode m : JSON.readTree(modelsJson).path("data")) {
        if (adapter.equals(m.path("id").asText())) {
          return true;
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  private CompletableFuture<HttpResponse<String>> post(String address, String adapter, String path, String body) {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + address + path)).timeout(timeout)
        .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).exceptionally(e -> {
      Throwable cause = LoadFailure.unwrap(e);
      throw new LoadFailure(adapter, address, "cannot reach the server: " + cause);
    });
  }

  private static String json(Map<String, String> fields) {
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
