package io.llmgw.batch.lifecycle;

import static io.llmgw.api.ClientText.clean;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;

/**
 * What validation needs of one input line, read by Jackson's streaming parser in one pass over the line's bytes: no
 * tree is built, and the request body is located by its byte offsets rather than copied, so a 7 MB line costs its
 * bytes once. Duplicate keys are refused: a tree keeps only the last, so the line sent would not be the line written,
 * and the gateway refuses such a body when a client sends it.
 *
 * @param problem why the line is refused (it names the line), or null
 * @param bodyFrom the body object's first byte ({@code {}) in the line
 * @param bodyTo one past the body object's last byte
 */
record LineFacts(String problem, String customId, String url, String method, String model, boolean stream,
    boolean hasPriority, int bodyFrom, int bodyTo) {
  private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  static LineFacts refused(String problem) {
    return new LineFacts(problem, null, null, null, null, false, false, -1, -1);
  }

  static LineFacts read(byte[] line, int length, int number) {
    try (JsonParser p = JSON.createParser(line, 0, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return refused("line " + number + " is not a JSON object");
      }
      String customId = null;
      String url = null;
      String method = null;
      Body body = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "custom_id" -> customId = text(p, value);
          case "method" -> method = scalar(p, value);
          case "url" -> url = scalar(p, value);
          case "body" -> body = value == JsonToken.START_OBJECT ? Body.read(p) : skip(p);
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        return refused("line " + number + " is not valid JSON: more follows its object");
      }
      return body == null
          ? new LineFacts(null, customId, url, method, null, false, false, -1, -1)
          : new LineFacts(null, customId, url, method, body.model, body.stream, body.hasPriority, body.from, body.to);
    } catch (JsonProcessingException e) {
      String why = clean(e.getOriginalMessage());
      return refused(why.startsWith("Duplicate field") ? "line " + number + " repeats a key (" + why + "); JSON "
          + "readers differ on which one counts, so the gateway refuses such a request"
          : "line " + number + " is not valid JSON: " + why);
    } catch (IOException e) {
      return refused("line " + number + " could not be read: " + clean(e.getMessage()));
    }
  }

  /** The body object's facts; its offsets bound the text queued. */
  private record Body(String model, boolean stream, boolean hasPriority, int from, int to) {
    static Body read(JsonParser p) throws IOException {
      int from = (int) p.currentTokenLocation().getByteOffset();
      String model = null;
      boolean stream = false;
      boolean priority = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "model" -> model = text(p, value);
          case "stream" -> stream = truthy(p, value);
          case "priority" -> {
            priority = true;
            p.skipChildren();
          }
          default -> p.skipChildren();
        }
      }
      return new Body(model, stream, priority, from, (int) p.currentLocation().getByteOffset());
    }
  }

  private static Body skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  /** A string's text; null for any other value (skipped). */
  private static String text(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_STRING) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  /** A scalar's text as JSON writes it (so a message can quote it); "" for an object or array (skipped). */
  private static String scalar(JsonParser p, JsonToken value) throws IOException {
    if (value.isScalarValue()) {
      return value == JsonToken.VALUE_NULL ? "" : p.getText();
    }
    p.skipChildren();
    return "";
  }

  /** As Jackson's {@code asBoolean()}: true, a non-zero integer, or the text "true". */
  private static boolean truthy(JsonParser p, JsonToken value) throws IOException {
    return switch (value) {
      case VALUE_TRUE -> true;
      case VALUE_NUMBER_INT -> p.getLongValue() != 0;
      case VALUE_STRING -> "true".equals(p.getText().trim());
      default -> {
        p.skipChildren();
        yield false;
      }
    };
  }
}
