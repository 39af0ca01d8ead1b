package io.llmgw.chattemplate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Responses API request as vLLM makes it into a chat before rendering: {@code instructions} a system message, a
 * string {@code input} a user message, {@code function_call} items assistant tool calls, {@code function_call_output}
 * items tool messages, {@code reasoning} items assistant reasoning, other items messages as they are; each tool
 * {@code {"type": "function", "function": <the tool with Responses' fields>}}, none when {@code tool_choice} is
 * {@code none}; the final message continued when it is an assistant message still {@code in_progress} or
 * {@code incomplete}. Earlier responses ({@code previous_response_id}) live only in the engine that served them: such a
 * request is refused here, and matched approximately.
 */
final class ResponsesInput {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] TOOL_FIELDS = {"name", "parameters", "strict", "type", "description"};

  private ResponsesInput() {
  }

  static TemplateInput of(JsonNode request, boolean contentAsParts) {
    if (request.hasNonNull("previous_response_id") || request.hasNonNull("conversation")) {
      throw new IllegalArgumentException("the conversation so far is stored in the engine (previous_response_id)");
    }
    ObjectNode chat = JSON.createObjectNode();
    ArrayNode messages = chat.putArray("messages");
    JsonNode instructions = request.path("instructions");
    if (instructions.isTextual() && !instructions.asText().isEmpty()) {
      messages.addObject().put("role", "system").put("content", instructions.asText());
    }
    JsonNode input = request.path("input");
    boolean continueFinal = false;
    if (input.isTextual()) {
      messages.addObject().put("role", "user").put("content", input.asText());
    } else if (input.isArray()) {
      for (JsonNode item : input) {
        messages.add(message(item));
      }
      JsonNode last = input.isEmpty() ? null : input.get(input.size() - 1);
      continueFinal = last != null && List.of("message", "reasoning").contains(last.path("type").asText("message"))
          && List.of("in_progress", "incomplete").contains(last.path("status").asText());
    } else {
      throw new IllegalArgumentException("input is neither text nor a list of items");
    }
    chat.put("add_generation_prompt", !continueFinal).put("continue_final_message", continueFinal);
    TemplateInput base = TemplateInput.ofChat(chat, contentAsParts);
    return new TemplateInput(base.messages(), tools(request), base.addGenerationPrompt(),
        base.continueFinalMessage(), base.kwargs(), base.hasMedia());
  }

  private static JsonNode message(JsonNode item) {
    if (!item.isObject()) {
      throw new IllegalArgumentException("an input item is not an object");
    }
    String type = item.path("type").asText("message");
    ObjectNode m = JSON.createObjectNode();
    switch (type) {
      case "function_call" -> {
        m.put("role", "assistant");
        ObjectNode call = m.putArray("tool_calls").addObject();
        call.set("id", item.get("call_id"));
        call.putObject("function").put("name", item.path("name").asText()).set("arguments", item.get("arguments"));
        call.put("type", "function");
      }
      case "function_call_output" -> {
        m.put("role", "tool");
        m.set("content", item.get("output"));
        m.set("tool_call_id", item.get("call_id"));
      }
      case "reasoning" -> {
        JsonNode summary = item.path("summary");
        JsonNode content = item.path("content");
        String text = summary.size() == 1 ? summary.get(0).path("text").asText()
            : content.size() == 1 ? content.get(0).path("text").asText() : "";
        m.put("role", "assistant").put("reasoning", text);
      }
      default -> {
        if (item.path("role").asText().equals("assistant") && item.path("content").isArray()
            && !item.path("content").isEmpty() && item.has("id")) {
          m.put("role", "assistant").set("content", item.path("content").get(0).path("text"));
        } else {
          return item;
        }
      }
    }
    return m;
  }

  private static List<Object> tools(JsonNode request) {
    JsonNode tools = request.path("tools");
    if (!tools.isArray() || "none".equals(request.path("tool_choice").asText())) {
      return null;
    }
    List<Object> out = new ArrayList<>();
    for (JsonNode tool : tools) {
      Map<String, Object> fields = new LinkedHashMap<>();
      if (tool.path("type").asText().equals("function")) {
        for (String field : TOOL_FIELDS) {
          fields.put(field, TemplateInput.plain(tool.get(field)));
        }
      }
      tool.properties().forEach(e -> fields.putIfAbsent(e.getKey(), TemplateInput.plain(e.getValue())));
      Map<String, Object> wrapped = new LinkedHashMap<>();
      wrapped.put("type", "function");
      wrapped.put("function", fields);
      out.add(wrapped);
    }
    return out;
  }
}
