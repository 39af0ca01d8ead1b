package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.SequenceListener.Usage;
import java.util.Map;

/** The OpenAI wire shapes the simulator answers with: whole responses, SSE chunks, model lists and errors. */
final class OpenAiResponses {
  static final ObjectMapper JSON = new ObjectMapper();

  private OpenAiResponses() {}

  static String id(boolean chat, long n) {
    return (chat ? "chatcmpl-" : "cmpl-") + Long.toHexString(n);
  }

  static ObjectNode whole(OpenAiRequest r, String id, long created, String text, String finish, Usage usage) {
    ObjectNode root = header(r, id, created, r.chat() ? "chat.completion" : "text_completion");
    ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
    if (r.chat()) {
      choice.putObject("message").put("role", "assistant").put("content", text);
    } else {
      choice.put("text", text);
    }
    choice.putNull("logprobs");
    choice.put("finish_reason", finish);
    root.set("usage", usage(usage));
    return root;
  }

  /** One SSE chunk; a chat stream's first chunk also carries the assistant role. */
  static ObjectNode chunk(OpenAiRequest r, String id, long created, String text, boolean first, String finish) {
    ObjectNode root = header(r, id, created, r.chat() ? "chat.completion.chunk" : "text_completion");
    ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
    if (r.chat()) {
      ObjectNode delta = choice.putObject("delta");
      if (first) {
        delta.put("role", "assistant");
      }
      if (text != null) {
        delta.put("content", text);
      }
    } else {
      choice.put("text", text == null ? "" : text);
    }
    choice.putNull("logprobs");
    if (finish == null) {
      choice.putNull("finish_reason");
    } else {
      choice.put("finish_reason", finish);
    }
    return root;
  }

  /** The final chunk of {@code stream_options.include_usage}: no choices, the usage. */
  static ObjectNode usageChunk(OpenAiRequest r, String id, long created, Usage usage) {
    ObjectNode root = header(r, id, created, r.chat() ? "chat.completion.chunk" : "text_completion");
    root.putArray("choices");
    root.set("usage", usage(usage));
    return root;
  }

  static ObjectNode models(String base, long created, Map<String, String> adapters, int maxModelLen) {
    ObjectNode root = JSON.createObjectNode().put("object", "list");
    ArrayNode data = root.putArray("data");
    model(data, base, base, null, created, maxModelLen);
    adapters.forEach((name, path) -> model(data, name, path, base, created, maxModelLen));
    return root;
  }

  static ObjectNode error(int status, String type, String message) {
    ObjectNode root = JSON.createObjectNode();
    root.putObject("error").put("message", message).put("type", type).putNull("param").put("code", status);
    return root;
  }

  private static void model(ArrayNode data, String id, String root, String parent, long created, int maxLen) {
    ObjectNode m = data.addObject().put("id", id).put("object", "model").put("created", created)
        .put("owned_by", "vllm").put("root", root);
    if (parent == null) {
      m.putNull("parent");
    } else {
      m.put("parent", parent);
    }
    m.put("max_model_len", maxLen);
  }

  private static ObjectNode header(OpenAiRequest r, String id, long created, String object) {
    return JSON.createObjectNode().put("id", id).put("object", object).put("created", created).put("model", r.model());
  }

  private static ObjectNode usage(Usage u) {
    ObjectNode n = JSON.createObjectNode().put("prompt_tokens", u.promptTokens())
        .put("completion_tokens", u.completionTokens()).put("total_tokens", u.promptTokens() + u.completionTokens());
    n.putObject("prompt_tokens_details").put("cached_tokens", u.cachedTokens());
    return n;
  }
}
