package io.llmgw.chattemplate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A chat request as vLLM hands it to the chat template: each message's content made one string (text parts joined by
 * newlines) or, for a template that loops over content, a list of {@code {"type": "text", "text": ...}} and
 * {@code {"type": "image"}} parts; an assistant's tool call arguments parsed from their JSON string into an object;
 * each tool as {@code {"type": "function", "function": {"name", "description", "parameters", ...}}} with the fields
 * vLLM's model fills in as null; {@code add_generation_prompt} (true unless asked), {@code continue_final_message} and
 * the request's {@code chat_template_kwargs}.
 *
 * @param tools null when the request has none
 * @param hasMedia some message holds an image, audio or video, whose hash vLLM keys the blocks that hold it with
 */
public record TemplateInput(List<Object> messages, List<Object> tools, boolean addGenerationPrompt,
    boolean continueFinalMessage, Map<String, Object> kwargs, boolean hasMedia) {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** Names the template's own inputs use: a request's {@code chat_template_kwargs} cannot replace them. */
  private static final Set<String> RESERVED = Set.of("messages", "tools", "documents", "add_generation_prompt",
      "continue_final_message", "chat_template", "tokenize");
  private static final Set<String> TEXT_PARTS = Set.of("text", "input_text", "output_text", "refusal", "thinking");
  /** vLLM's media parts and the modality each is to a template that reads parts. */
  private static final Map<String, String> MEDIA_PARTS = Map.of("image_url", "image", "input_image", "image",
      "image_pil", "image", "image_embeds", "image", "audio_url", "audio", "input_audio", "audio", "audio_embeds",
      "audio", "video_url", "video");

  /** @throws IllegalArgumentException naming what vLLM would refuse */
  public static TemplateInput ofChat(JsonNode request, boolean contentAsParts) {
    JsonNode messages = request.path("messages");
    if (!messages.isArray()) {
      throw new IllegalArgumentException("messages is not a list");
    }
    List<Object> conversation = new ArrayList<>();
    boolean media = false;
    for (JsonNode m : messages) {
      conversation.add(message(m, contentAsParts));
      media |= hasMedia(m.path("content"));
    }
    boolean addGenerationPrompt = request.path("add_generation_prompt").asBoolean(true);
    boolean continueFinal = request.path("continue_final_message").asBoolean(false);
    if (addGenerationPrompt && continueFinal) {
      throw new IllegalArgumentException("continue_final_message and add_generation_prompt cannot both be true");
    }
    return new TemplateInput(conversation, tools(request.path("tools")), addGenerationPrompt, continueFinal,
        kwargs(request.path("chat_template_kwargs")), media);
  }

  private static Map<String, Object> message(JsonNode m, boolean contentAsParts) {
    if (!m.isObject() || !m.path("role").isTextual()) {
      throw new IllegalArgumentException("a message without a role");
    }
    String role = m.path("role").asText();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("role", role);
    out.put("content", content(m.path("content"), contentAsParts));
    if (role.equals("assistant")) {
      JsonNode calls = m.path("tool_calls");
      if (calls.isArray() && !calls.isEmpty()) {
        out.put("tool_calls", toolCalls((ArrayNode) calls));
      }
      JsonNode reasoning = m.path("reasoning");
      if (reasoning.isTextual()) {
        out.put("reasoning", reasoning.asText());
        out.put("reasoning_content", reasoning.asText());
      }
    } else if (role.equals("tool") && m.has("tool_call_id")) {
      out.put("tool_call_id", plain(m.get("tool_call_id")));
    }
    if (m.path("name").isTextual()) {
      out.put("name", m.path("name").asText());
    }
    if (role.equals("developer")) {
      out.put("tools", plain(m.path("tools").isMissingNode() ? null : m.get("tools")));
    }
    return out;
  }

  private static Object content(JsonNode content, boolean asParts) {
    List<JsonNode> parts = new ArrayList<>();
    if (content.isTextual()) {
      parts.add(JSON.createObjectNode().put("type", "text").put("text", content.asText()));
    } else if (content.isArray()) {
      content.forEach(parts::add);
    } else if (!content.isNull() && !content.isMissingNode()) {
      throw new IllegalArgumentException("a message's content is neither text nor a list of parts");
    }
    List<Object> wrapped = new ArrayList<>();
    StringBuilder joined = new StringBuilder();
    int texts = 0;
    for (JsonNode part : parts) {
      String text = partText(part);
      if (text != null) {
        wrapped.add(Map.of("type", "text", "text", text));
        joined.append(texts++ == 0 ? "" : "\n").append(text);
      } else if (MEDIA_PARTS.containsKey(part.path("type").asText())) {
        wrapped.add(Map.of("type", MEDIA_PARTS.get(part.path("type").asText())));
      }
    }
    return asParts ? wrapped : joined.toString();
  }

  private static boolean hasMedia(JsonNode content) {
    for (JsonNode part : content) {
      if (MEDIA_PARTS.containsKey(part.path("type").asText())) {
        return true;
      }
    }
    return false;
  }

  private static String partText(JsonNode part) {
    if (part.isTextual()) {
      return part.asText();
    }
    String type = part.path("type").asText();
    if (!TEXT_PARTS.contains(type)) {
      return null;
    }
    JsonNode text = part.path(type.equals("refusal") ? "refusal" : type.equals("thinking") ? "thinking" : "text");
    return text.isTextual() ? text.asText() : null;
  }

  private static List<Object> toolCalls(ArrayNode calls) {
    List<Object> out = new ArrayList<>();
    for (JsonNode call : calls) {
      ObjectNode copy = call.isObject() ? ((ObjectNode) call).deepCopy() : JSON.createObjectNode();
      JsonNode function = copy.path("function");
      if (function.isObject()) {
        JsonNode arguments = function.path("arguments");
        ObjectNode f = (ObjectNode) function;
        if (arguments.isTextual() && !arguments.asText().isEmpty()) {
          try {
            f.set("arguments", JSON.readTree(arguments.asText()));
          } catch (IOException e) {
            throw new IllegalArgumentException("a tool call's arguments are not JSON: " + e.getMessage());
          }
        } else if (arguments.isMissingNode() || arguments.isNull() || arguments.asText().isEmpty()
            && arguments.isTextual()) {
          f.set("arguments", JSON.createObjectNode());
        }
      }
      out.add(plain(copy));
    }
    return out;
  }

  private static List<Object> tools(JsonNode tools) {
    if (!tools.isArray()) {
      return null;
    }
    List<Object> out = new ArrayList<>();
    for (JsonNode tool : tools) {
      JsonNode function = tool.path("function");
      if (!function.isObject() || !function.path("name").isTextual()) {
        throw new IllegalArgumentException("a tool without a function name");
      }
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("name", function.path("name").asText());
      f.put("description", plain(function.path("description").isMissingNode() ? null : function.get("description")));
      f.put("parameters", plain(function.path("parameters").isMissingNode() ? null : function.get("parameters")));
      function.properties().forEach(e -> f.putIfAbsent(e.getKey(), plain(e.getValue())));
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("type", "function");
      t.put("function", f);
      out.add(t);
    }
    return out;
  }

  private static Map<String, Object> kwargs(JsonNode kwargs) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (kwargs.isObject()) {
      kwargs.properties().forEach(e -> {
        if (!RESERVED.contains(e.getKey())) {
          out.put(e.getKey(), plain(e.getValue()));
        }
      });
    }
    return out;
  }

  static Object plain(JsonNode node) {
    return node == null || node.isNull() ? null : JSON.convertValue(node, Object.class);
  }
}
