package io.llmgw.batch.lifecycle;

import static io.llmgw.api.ClientText.clean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.batch.BatchSettings;
import io.llmgw.batch.dispatch.ResultLines;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a batch's input file, line by line, the way OpenAI validates it: each line a JSON object with a unique
 * {@code custom_id}, {@code method} POST, the batch's endpoint as {@code url} and a {@code body} naming a {@code model}.
 * Any bad line fails the whole batch, naming the line; a line for a model no route serves is not an error of the file
 * but of the line, and goes to the error file.
 */
public final class InputValidator {
  /**
   * Duplicate keys refused: the tree keeps only the last, so the line sent would not be the line written, and the
   * gateway refuses such a body when a client sends it.
   */
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final int MAX_ERRORS_LISTED = 100;
  private static final int MAX_CUSTOM_ID = 512;

  private final BatchSettings settings;

  public InputValidator(BatchSettings settings) {
    this.settings = settings;
  }

  /** What validation decided: problems (the batch fails) or lines to queue and results already known. */
  public record Outcome(List<LineError> errors, List<QueuedLine> lines, List<LineResult> known, int total) {}

  /**
   * Reads the file as a stream, one line (up to the line limit) at a time; what it keeps is each good line's body as
   * text, not its parsed tree, so a batch in validation takes about its own size in memory.
   */
  public Outcome validate(Batch b, InputStream content, Map<String, String> modelPools) throws IOException {
    List<LineError> errors = new ArrayList<>();
    List<QueuedLine> queued = new ArrayList<>();
    List<LineResult> known = new ArrayList<>();
    int total = 0;
    Set<String> ids = new HashSet<>();
    int lineNumber = 0;
    LineSplitter lines = new LineSplitter(content, settings.limits().maxLineBytes());
    while (errors.size() < MAX_ERRORS_LISTED && lines.next()) {
      lineNumber++;
      if (lines.blank()) {
        continue;
      }
      if (total + 1 > settings.limits().maxLines()) {
        errors.add(new LineError("too_many_lines", "the file has more than " + settings.limits().maxLines()
            + " requests, the most one batch takes", null, lineNumber));
        break;
      }
      if (lines.length() > settings.limits().maxLineBytes()) {
        errors.add(new LineError("line_too_large", "line " + lineNumber + " is " + lines.length()
            + " bytes, more than the " + settings.limits().maxLineBytes() + " a request may be", null, lineNumber));
        continue;
      }
      String problem = null;
      JsonNode line = null;
      try {
        line = JSON.readTree(lines.text());
      } catch (JsonProcessingException e) {
        String why = clean(e.getOriginalMessage());
        problem = why.startsWith("Duplicate field") ? "line " + lineNumber + " repeats a key (" + why + "); JSON "
            + "readers differ on which one counts, so the gateway refuses such a request"
            : "line " + lineNumber + " is not valid JSON: " + why;
      }
      if (problem == null) {
        problem = check(b, line, lineNumber, ids);
      }
      if (problem != null) {
        errors.add(new LineError("invalid_request", problem, null, lineNumber));
      } else {
        total++;
        if (errors.isEmpty()) { // once the batch fails, its lines are only checked
          keep(b, line, lineNumber, modelPools, queued, known);
        }
      }
    }
    if (errors.isEmpty() && total == 0) {
      errors.add(new LineError("empty_file", "the input file holds no requests", null, null));
    }
    if (!errors.isEmpty()) {
      return new Outcome(errors, List.of(), List.of(), total);
    }
    return new Outcome(List.of(), queued, known, total);
  }

  private void keep(Batch b, JsonNode line, int number, Map<String, String> modelPools, List<QueuedLine> queued,
      List<LineResult> known) {
    String customId = line.get("custom_id").asText();
    String model = line.get("body").get("model").asText();
    String pool = modelPools.get(model);
    JsonNode body = line.get("body");
    if (settings.delivery().podPriority() != null && !body.has("priority")) {
      ((ObjectNode) body).put("priority", settings.delivery().podPriority().intValue());
    }
    QueuedLine q = new QueuedLine(b.id(), customId, number, pool == null ? "" : pool, b.expiresAt() * 1000,
        b.endpoint(), body.toString());
    if (pool == null) {
      known.add(ResultLines.unanswered(q, ResultLines.MODEL_NOT_FOUND, "no route serves the model '" + clean(model)
          + "'"));
    } else {
      queued.add(q);
    }
  }

  private static String check(Batch b, JsonNode line, int n, Set<String> ids) {
    if (line == null || !line.isObject()) {
      return "line " + n + " is not a JSON object";
    }
    JsonNode id = line.get("custom_id");
    if (id == null || !id.isTextual() || id.asText().isEmpty()) {
      return "line " + n + " has no custom_id (a non-empty string)";
    }
    if (id.asText().length() > MAX_CUSTOM_ID) {
      return "line " + n + " has a custom_id longer than " + MAX_CUSTOM_ID + " characters";
    }
    if (!ids.add(id.asText())) {
      return "line " + n + " repeats the custom_id '" + clean(id.asText()) + "'; each request needs its own";
    }
    JsonNode method = line.get("method");
    if (method == null || !"POST".equals(method.asText())) {
      return "line " + n + " has method " + (method == null ? "none" : "'" + clean(method.asText()) + "'")
          + "; only POST is supported";
    }
    JsonNode url = line.get("url");
    if (url == null || !b.endpoint().equals(url.asText())) {
      return "line " + n + " has url " + (url == null ? "none" : "'" + clean(url.asText()) + "'") + "; this batch's "
          + "endpoint is " + b.endpoint();
    }
    JsonNode body = line.get("body");
    if (body == null || !body.isObject()) {
      return "line " + n + " has no body object";
    }
    JsonNode model = body.get("model");
    if (model == null || !model.isTextual() || model.asText().isEmpty()) {
      return "line " + n + " has no body.model";
    }
    if (body.path("stream").asBoolean(false)) {
      return "line " + n + " asks for a stream; batch requests cannot stream";
    }
    return null;
  }

}
