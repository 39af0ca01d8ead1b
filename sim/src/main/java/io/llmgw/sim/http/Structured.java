package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What a chat answer must be besides free text, as vLLM decides it: a call of one of the request's {@code tools}, or
 * content in the {@code response_format}. vLLM's rules: {@code tools} without {@code tool_choice} means {@code auto};
 * {@code auto} needs the server started with {@code --enable-auto-tool-choice} (a 400 otherwise); {@code none} ignores
 * the tools; {@code required} and a named function always call (finish reason {@code stop}, content empty, as vLLM's
 * guided decoding answers); {@code auto} calls (finish reason {@code tool_calls}, content null) where a model would:
 * here, when the conversation's last message is not a tool's result, the tool the last message names, else the first.
 *
 * @param schema the tool's parameters or the response format's schema; null for {@code json_object} or no parameters
 */
record Structured(Kind kind, String toolName, JsonNode schema) {
  enum Kind { TOOL_AUTO, TOOL_FORCED, JSON }

  /**
   * A chat or Responses request's decided answer (a tool call, or content for a format), or null for free text. The two APIs say the same in other places: a
   * chat tool is {@code {type, function: {name, parameters}}} and its format {@code response_format}, a Responses
   * tool {@code {type, name, parameters}} and its format {@code text.format}; a tool's result is a {@code tool}
   * message there and a {@code function_call_output} item here.
   */
  static Plan plan(OpenAiRequest.Api api, JsonNode body, boolean autoToolChoice, SplittableRandom random) {
    boolean chat = api == OpenAiRequest.Api.CHAT;
    List<JsonNode> tools = tools(body.get("tools"), chat);
    JsonNode choice = body.get("tool_choice");
    JsonNode conversation = chat ? body.path("messages") : body.path("input");
    Structured call = tools.isEmpty() && (choice == null || choice.isNull()) ? null
        : toolCall(tools, choice, conversation, autoToolChoice);
    Structured s = call != null ? call
        : chat ? format(body.get("response_format"), "json_schema") : format(body.path("text").get("format"), null);
    // made up once, as the request is read: a schema with no instance is the client's 400 before the engine runs
    return s == null ? null : s.plan(random);
  }

  private static List<JsonNode> tools(JsonNode tools, boolean chat) {
    List<JsonNode> out = new ArrayList<>();
    if (tools == null || tools.isNull()) {
      return out;
    }
    if (!tools.isArray()) {
      throw new IllegalArgumentException("'tools' must be an array of function tools");
    }
    for (JsonNode t : tools) {
      JsonNode fn = chat ? t.path("function") : t;
      if (!t.path("type").asText("").equals("function") || !fn.path("name").isTextual()
          || fn.path("name").asText().isEmpty()) {
        throw new IllegalArgumentException(chat ? "each tool must be {\"type\": \"function\", \"function\": "
            + "{\"name\": ...}}" : "each tool must be {\"type\": \"function\", \"name\": ...}");
      }
      if (fn.has("parameters") && !fn.get("parameters").isNull() && !fn.get("parameters").isObject()) {
        throw new IllegalArgumentException("tool " + fn.get("name").asText() + ": 'parameters' must be a JSON schema "
            + "object");
      }
      out.add(fn);
    }
    return out;
  }

  private static Structured toolCall(List<JsonNode> tools, JsonNode choice, JsonNode messages,
      boolean autoToolChoice) {
    String mode = choice == null || choice.isNull() ? "auto" : choice.isTextual() ? choice.asText() : "named";
    if (tools.isEmpty() && !mode.equals("none")) {
      if (mode.equals("required")) {
        return null; // vLLM: required over no tools is none
      }
      throw new IllegalArgumentException("When using `tool_choice`, `tools` must be set.");
    }
    return switch (mode) {
      case "none" -> null;
      case "auto" -> {
        if (!autoToolChoice) {
          throw new IllegalArgumentException(
              "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set");
        }
        yield afterToolResult(messages) ? null : named(Kind.TOOL_AUTO, pick(tools, messages));
      }
      case "required" -> named(Kind.TOOL_FORCED, pick(tools, messages));
      case "named" -> {
        JsonNode name = choice.has("function") ? choice.path("function").path("name") : choice.path("name");
        if (!name.isTextual() || name.asText().isEmpty()) {
          throw new IllegalArgumentException("Expected field `name` in `function` in `tool_choice`! Correct usage: "
              + "`{\"type\": \"function\", \"function\": {\"name\": \"my_function\"}}`");
        }
        yield named(Kind.TOOL_FORCED, tools.stream().filter(t -> t.get("name").asText().equals(name.asText()))
            .findFirst().orElseThrow(() -> new IllegalArgumentException(
                "The tool specified in `tool_choice` does not match any of the specified `tools`")));
      }
      default -> throw new IllegalArgumentException("Invalid value for `tool_choice`: " + mode
          + "! Only named tools, \"none\", \"auto\" or \"required\" are supported.");
    };
  }

  private static Structured named(Kind kind, JsonNode fn) {
    JsonNode parameters = fn.get("parameters");
    return new Structured(kind, fn.get("name").asText(), parameters == null || parameters.isNull() ? null : parameters);
  }

  private static boolean afterToolResult(JsonNode messages) {
    if (!messages.isArray() || messages.isEmpty()) {
      return false;
    }
    JsonNode last = messages.get(messages.size() - 1);
    return last.path("role").asText("").equals("tool") || last.path("type").asText("").equals("function_call_output");
  }

  /** The tool the last message names, else the first. */
  private static JsonNode pick(List<JsonNode> tools, JsonNode messages) {
    String last = (messages.isArray() && !messages.isEmpty() ? messages.get(messages.size() - 1).path("content")
        : messages).toString().toLowerCase(Locale.ROOT);
    return tools.stream().filter(t -> last.contains(t.get("name").asText().toLowerCase(Locale.ROOT))).findFirst()
        .orElse(tools.getFirst());
  }

  /** @param under where the schema sits: chat's {@code json_schema.schema}, or (null) the Responses API's {@code schema} */
  private static Structured format(JsonNode format, String under) {
    String field = under == null ? "text.format" : "response_format";
    if (format == null || format.isNull()) {
      return null;
    }
    return switch (format.path("type").asText("")) {
      case "text" -> null;
      case "json_object" -> new Structured(Kind.JSON, null, null);
      case "json_schema" -> {
        JsonNode schema = under == null ? format.path("schema") : format.path(under).path("schema");
        if (!schema.isObject()) {
          throw new IllegalArgumentException(field + " json_schema needs " + (under == null ? "" : under + ".")
              + "schema, a JSON schema");
        }
        yield new Structured(Kind.JSON, null, schema);
      }
      default -> throw new IllegalArgumentException(field + " type must be text, json_object or json_schema");
    };
  }

  /** The answer's text, made up now: the tool's arguments or the content, valid for the schema. */
  Plan plan(SplittableRandom random) {
    String text = SchemaInstance.of(schema != null || kind == Kind.JSON ? schema
        : JsonNodeFactory.instance.objectNode().put("type", "object"), random).toString();
    String callId = kind == Kind.JSON ? null : Long.toHexString(random.nextLong());
    return new Plan(this, callId, text);
  }
}
