package io.llmgw.extproc.tokens;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.ByteString;
import io.llmgw.api.Causes;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * vLLM's own rendering and tokenizing, asked over HTTP of a render server ({@code vllm launch render MODEL}, llm-d's
 * tokenizer sidecar): {@code POST /v1/chat/completions/render} answers a chat request's token ids as the engine computes
 * them (its chat template, tools and all), {@code /v1/completions/render} a completion's. Bounded everywhere: at most
 * {@code maxInFlight} requests at the server (beyond, a request is matched approximately at once), a time limit per
 * request after which its exchange is given up, answers collected without a thread up to {@value #MAX_ANSWER_BYTES}
 * bytes and {@value #MAX_TOKENS} ids; whatever fails is said in a sampled warning and the request is matched
 * approximately.
 */
public final class VllmRenderTokenizer implements RemoteTokenizer, AutoCloseable {
  public static final String PREFIX = "vllm:";
  static final String CHAT_PATH = "/v1/chat/completions/render";
  static final String COMPLETIONS_PATH = "/v1/completions/render";
  static final int MAX_ANSWER_BYTES = 16 << 20;
  static final int MAX_TOKENS = 2_000_000;
  private static final Logger LOG = LoggerFactory.getLogger(VllmRenderTokenizer.class);
  private static final JsonFactory JSON = new JsonFactory();

  private final URI chat;
  private final URI completions;
  private final String modelName;
  private final Duration timeout;
  private final int maxInFlight;
  private final Semaphore inFlight;
  private final HttpClient http;
  private final FallbackWarnings warnings = new FallbackWarnings(LOG, "render server");

  /**
   * @param baseUrl {@code http://host:port} of the render server
   * @param modelName the model it serves, put in every request in place of the client's
   */
  public VllmRenderTokenizer(URI baseUrl, String modelName, Duration timeout, int maxInFlight) {
    String base = baseUrl.toString().replaceAll("/+$", "");
    this.chat = URI.create(base + CHAT_PATH);
    this.completions = URI.create(base + COMPLETIONS_PATH);
    this.modelName = modelName;
    this.timeout = timeout;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
    // vLLM's server speaks HTTP/1.1 only; answers are collected without a thread (BoundedBody) and parsed as they end
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
  }

  @Override
  public String name() {
    return PREFIX + chat.resolve("/");
  }

  @Override
  public String modelName() {
    return modelName;
  }

  @Override
  public CompletableFuture<int[]> render(boolean isChat, ByteString body) {
    URI uri = isChat ? chat : completions;
    if (!inFlight.tryAcquire()) {
      warnings.warn("busy", () -> "all " + maxInFlight + " permitted requests are at the server; this one is matched "
          + "approximately");
      return CompletableFuture.completedFuture(null);
    }
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofInputStream(body::newInput)).build();
    CompletableFuture<HttpResponse<byte[]>> sent = http.sendAsync(request, BoundedBody.upTo(MAX_ANSWER_BYTES));
    CompletableFuture<int[]> ids = sent.thenApply(r -> {
      if (r.statusCode() != 200) {
        String start = new String(r.body(), 0, Math.min(200, r.body().length), StandardCharsets.UTF_8);
        throw new IllegalStateException("HTTP " + r.statusCode() + ": " + start.replaceAll("\\s+", " "));
      }
      try {
        return tokenIds(new ByteArrayInputStream(r.body()), isChat);
      } catch (IOException e) {
        throw new IllegalStateException("garbage answer: " + e.getMessage(), e);
      }
    }).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return ids.handle((v, e) -> {
      inFlight.release();
      if (e != null) {
        sent.cancel(true); // a slow answer's exchange is given up, not left to run on
        warnings.warn("failed", () -> uri + ": " + Causes.rootMessage(e));
        return null;
      }
      return v;
    });
  }

  /** The ids of {@code {"token_ids": [...]}} (chat) or {@code [{"token_ids": [...]}]} (one completion prompt). */
  static int[] tokenIds(InputStream answer, boolean isChat) throws IOException {
    try (JsonParser p = JSON.createParser(answer)) {
      JsonToken t = p.nextToken();
      if (!isChat) {
        if (t != JsonToken.START_ARRAY) {
          throw new IOException("a completion's render answer is a list, not " + t);
        }
        t = p.nextToken();
      }
      if (t != JsonToken.START_OBJECT) {
        throw new IOException("expected an object with token_ids, not " + t);
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        t = p.nextToken();
        if (field.equals("token_ids")) {
          return ids(p, t);
        }
        p.skipChildren();
      }
      throw new IOException("the answer has no token_ids");
    }
  }

  private static int[] ids(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      throw new IOException("token_ids is not a list");
    }
    int[] out = new int[1024];
    int n = 0;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 0) {
        throw new IOException("token_ids holds " + t + ", not a token id");
      }
      if (n == MAX_TOKENS) {
        throw new IOException("more than " + MAX_TOKENS + " token ids");
      }
      if (n == out.length) {
        out = Arrays.copyOf(out, Math.min(MAX_TOKENS, out.length * 2));
      }
      out[n++] = p.getIntValue();
    }
    return Arrays.copyOf(out, n);
  }

  @Override
  public void close() {
    http.shutdownNow();
  }
}
