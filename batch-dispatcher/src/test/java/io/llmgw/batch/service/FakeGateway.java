package io.llmgw.batch.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The gateway as the batch service sees it, on one loopback port: the EPP's {@code /admin/load} (its running count
 * includes the requests held here, as the real EPP counts what it sent) and the front door answering inference
 * requests as a test tells it to.
 */
final class FakeGateway implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How the front door answers one request; null holds it until {@link #releaseHeld}.
   *
   * @param dropReason the gateway's {@code x-llm-d-request-dropped-reason}, or null
   */
  record Answer(int status, String body, long delayMillis, String dropReason) {
    Answer(int status, String body) {
      this(status, body, 0, null);
    }

    Answer after(long millis) {
      return new Answer(status, body, millis, dropReason);
    }

    Answer droppedFor(String reason) {
      return new Answer(status, body, delayMillis, reason);
    }
  }

  /** The front door is gone: the connection is reset without an answer (a proxy restarting). */
  static final Answer DROP = new Answer(-1, "");

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  final AtomicReference<String> loadOverride = new AtomicReference<>();
  /** When set, /admin/load answers 401 to a request without {@code Authorization: Bearer} this. */
  volatile String requiredToken;
  final AtomicInteger baseRunning = new AtomicInteger();
  final AtomicInteger podSlots = new AtomicInteger(1);
  volatile Function<JsonNode, Answer> answer = body -> ok(body);
  final Map<String, AtomicInteger> receivedById = new ConcurrentHashMap<>();
  final List<String> objectives = new CopyOnWriteArrayList<>();
  /** Each inference request's Authorization and x-llmgw-on-behalf-of, as {@code key|owner}. */
  final List<String> credentials = new CopyOnWriteArrayList<>();
  final List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
  final AtomicInteger received = new AtomicInteger();

  FakeGateway() throws Exception {
    server = vertx.createHttpServer().requestHandler(this::handle).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  int port() {
    return server.actualPort();
  }

  String admin() {
    return "127.0.0.1:" + port();
  }

  String frontDoor() {
    return "http://127.0.0.1:" + port();
  }

  static Answer ok(JsonNode body) {
    return new Answer(200,
        "{\"id\":\"cmpl-1\",\"object\":\"chat.completion\",\"model\":\"" + body.path("model").asText()
            + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
            + "\"finish_reason\":\"stop\"}]}");
  }

  private void handle(HttpServerRequest req) {
    if (req.path().equals("/admin/load")) {
      if (requiredToken != null && !("Bearer " + requiredToken).equals(req.getHeader("Authorization"))) {
        req.response().setStatusCode(401).end();
        return;
      }
      String override = loadOverride.get();
      if (override != null) {
        int status = override.startsWith("500") ? 500 : 200;
        req.response().setStatusCode(status).end(override);
        return;
      }
      int running = baseRunning.get() + held.size();
      req.response().putHeader("content-type", "application/json").end("{\"pools\":[{\"pool\":\"ns/pool\",\"pods\":"
          + podSlots.get() + ",\"running\":" + running + ",\"waiting\":0,\"sentSinceReport\":0,"
          + "\"flowWaiting\":0}],"
          + "\"models\":{\"m\":\"ns/pool\"}}");
      return;
    }
    req.body().onSuccess(buf -> {
      received.incrementAndGet();
      receivedById.computeIfAbsent(req.getHeader("x-request-id"), k -> new AtomicInteger()).incrementAndGet();
      String objective = req.getHeader("x-gateway-inference-objective");
      objectives.add(objective == null ? "" : objective);
      credentials.add(req.getHeader("authorization") + "|" + req.getHeader("x-llmgw-on-behalf-of"));
      JsonNode body;
      try {
        body = JSON.readTree(buf.getBytes());
      } catch (Exception e) {
        req.response().setStatusCode(400).end("{\"error\":{\"message\":\"not json\"}}");
        return;
      }
      Answer a = answer.apply(body);
      if (a == null) {
        held.add(req);
      } else if (a == DROP) {
        req.connection().close();
      } else if (a.delayMillis() > 0) {
        vertx.setTimer(a.delayMillis(), t -> reason(req, a).setStatusCode(a.status())
            .putHeader("content-type", "application/json").end(a.body()));
      } else {
        reason(req, a).setStatusCode(a.status()).putHeader("content-type", "application/json").end(a.body());
      }
    });
  }

  void releaseHeld() {
    for (HttpServerRequest r : held) {
      r.response().putHeader("content-type", "application/json").end("{\"id\":\"cmpl-held\",\"choices\":[]}");
    }
    held.clear();
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static io.vertx.core.http.HttpServerResponse reason(io.vertx.core.http.HttpServerRequest req, Answer a) {
    return a.dropReason() == null ? req.response()
        : req.response().putHeader(io.llmgw.api.DropReason.HEADER, a.dropReason());
  }
}
