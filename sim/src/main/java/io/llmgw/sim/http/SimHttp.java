package io.llmgw.sim.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.util.function.Consumer;

/** The simulator's HTTP plumbing: bodies read within a limit, JSON in, and answers out in vLLM's shapes. */
final class SimHttp {
  private SimHttp() {}

  /** Reads the body up to {@link SimServer#MAX_BODY_BYTES}; a larger one is answered 413 and never buffered whole. */
  static void withBody(HttpServerRequest req, Consumer<Buffer> then) {
    Buffer buf = Buffer.buffer();
    boolean[] tooLarge = {false};
    req.handler(chunk -> {
      if (tooLarge[0]) {
        return;
      }
      if (buf.length() + chunk.length() > SimServer.MAX_BODY_BYTES) {
        tooLarge[0] = true;
        error(req.response(), 413, "BadRequestError", "request body exceeds " + SimServer.MAX_BODY_BYTES + " bytes");
        return;
      }
      buf.appendBuffer(chunk);
    });
    req.endHandler(v -> {
      if (!tooLarge[0]) {
        then.accept(buf);
      }
    });
  }

  static JsonNode readJson(Buffer bytes) {
    try {
      return OpenAiResponses.JSON.readTree(bytes.getBytes());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the request body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("the request body could not be read: " + e.getMessage());
    }
  }

  static int parseStatus(String value) {
    try {
      int code = Integer.parseInt(value.trim());
      return code >= 400 && code <= 599 ? code : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static void methodNotAllowed(HttpServerRequest req) {
    error(req.response(), 405, "MethodNotAllowed", req.path() + " takes POST");
  }

  static void error(HttpServerResponse response, int status, String type, String message) {
    json(response, status, OpenAiResponses.error(status, type, message));
  }

  static void json(HttpServerResponse response, int status, Object body) {
    if (response.ended() || response.headWritten()) {
      return;
    }
    response.setStatusCode(status).putHeader("content-type", "application/json").end(body.toString());
  }

  static void text(HttpServerResponse response, int status, String body) {
    if (!response.ended()) {
      response.setStatusCode(status).putHeader("content-type", "text/plain; charset=utf-8").end(body);
    }
  }
}
