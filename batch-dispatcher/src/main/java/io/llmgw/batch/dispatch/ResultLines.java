package io.llmgw.batch.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Output and error file lines in OpenAI's format: {@code {"id", "custom_id", "response": {"status_code",
 * "request_id", "body"}, "error"}}. An answer from the gateway keeps its status and body (a 4xx goes to the error file
 * as OpenAI does); a line that never got an answer has {@code response: null} and an {@code error} with a code.
 */
public final class ResultLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Error codes of lines that got no answer. */
  public static final String EXPIRED = "batch_expired";
  public static final String CANCELLED = "batch_cancelled";
  public static final String MODEL_NOT_FOUND = "model_not_found";

  private ResultLines() {}

  /** The line's result id: the same whichever attempt writes it. */
  static String requestId(QueuedLine l) {
    return "batch_req_" + UUID.nameUUIDFromBytes((l.batchId() + "\n" + l.customId()).getBytes(StandardCharsets.UTF_8))
        .toString().replace("-", "");
  }

  public static LineResult answered(QueuedLine l, int status, String requestId, byte[] body) {
    ObjectNode line = JSON.createObjectNode();
    line.put("id", requestId(l));
    line.put("custom_id", l.customId());
    ObjectNode response = line.putObject("response");
    response.put("status_code", status);
    response.put("request_id", requestId);
    JsonNode answer = bodyJson(body);
    response.set("body", answer);
    line.putNull("error");
    JsonNode usage = answer.path("usage");
    return new LineResult(l.batchId(), l.customId(), l.line(), status >= 200 && status < 300, line.toString(),
        tokens(usage, "prompt_tokens", "input_tokens"), tokens(usage, "completion_tokens", "output_tokens"));
  }

  /** A count of the answer's usage, when it is a whole number a model could have produced; 0 otherwise. */
  private static long tokens(JsonNode usage, String name, String responsesName) {
    JsonNode n = usage.has(name) ? usage.get(name) : usage.path(responsesName);
    return n.isIntegralNumber() && n.canConvertToLong() && n.longValue() >= 0 && n.longValue() <= 50_000_000
        ? n.longValue() : 0;
  }

  public static LineResult unanswered(QueuedLine l, String code, String message) {
    return unanswered(l.batchId(), l.customId(), l.line(), requestId(l), code, message);
  }

  public static LineResult unanswered(String batchId, String customId, int lineNumber, String id, String code,
      String message) {
    ObjectNode line = JSON.createObjectNode();
    line.put("id", id);
    line.put("custom_id", customId);
    line.putNull("response");
    ObjectNode error = line.putObject("error");
    error.put("code", code);
    error.put("message", message);
    return new LineResult(batchId, customId, lineNumber, false, line.toString());
  }

  /** The error code of an unanswered line, or null. */
  public static String errorCode(LineResult r) {
    try {
      JsonNode code = JSON.readTree(r.json()).path("error").path("code");
      return code.isTextual() ? code.asText() : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static JsonNode bodyJson(byte[] body) {
    try {
      JsonNode n = JSON.readTree(body);
      if (n != null) {
        return n;
      }
    } catch (IOException e) {
      // not JSON: kept as text below
    }
    return JSON.getNodeFactory().textNode(new String(body, StandardCharsets.UTF_8));
  }
}
