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

  static String id(OpenAiRequest.Api api, long n) {
    String prefix = switch (api) {
      case CHAT -> "chatcmpl-";
      case COMPLETIONS -> "cmpl-";
      case EMBEDDINGS -> "embd-";
      case RESPONSES -> "resp_";
    };
    return prefix + Long.toHexString(n);
  }

  /** Whatever answers a whole (not streamed) request, in its endpoint's shape. */
  static ObjectNode answer(OpenAiRequest r, String id, long created, String text, String finish, Usage usage) {
    return switch (r.api()) {
      case EMBEDDINGS -> embeddings(r, id, created, usage);
      case RESPONSES -> response(r, id, created, text, usage);
      default -> whole(r, id, created, text, finish, usage);
    };
  }

  /** vLLM's embeddings answer: one unit vector per input, the same for the same input and model. */
  static ObjectNode embeddings(OpenAiRequest r, String id, long created, Usage usage) {
    ObjectNode root = header(r, id, created, "list");
    ArrayNode data = root.putArray("data");
    String[] inputs = r.prompt().split("\n", -1);
    for (int i = 0; i < r.inputs(); i++) {
      ArrayNode v = data.addObject().put("index", i).put("object", "embedding").putArray("embedding");
      long seed = net.openhft.hashing.LongHashFunction.xx(r.model().hashCode())
          .hashChars(i < inputs.length ? inputs[i] : "");
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      double[] x = new double[EMBEDDING_DIMENSIONS];
      double norm = 0;
      for (int d = 0; d < x.length; d++) {
        x[d] = random.nextDouble(-1, 1);
        norm += x[d] * x[d];
      }
      for (double value : x) {
        v.add((float) (value / Math.sqrt(norm)));
      }
    }
    root.putObject("usage").put("prompt_tokens", usage.promptTokens()).put("total_tokens", usage.promptTokens())
        .putNull("completion_tokens");
    return root;
  }

  static final int EMBEDDING_DIMENSIONS = 64;

  /** vLLM's Responses API answer: one assistant message with the text. */
  static ObjectNode response(OpenAiRequest r, String id, long created, String text, Usage usage) {
    ObjectNode root = JSON.createObjectNode().put("id", id).put("object", "response").put("created_at", created)
        .put("model", r.model()).put("status", "completed").putNull("error").putNull("incomplete_details")
        .putNull("instructions").put("parallel_tool_calls", true).put("temperature", 1.0).put("top_p", 1.0)
        .put("tool_choice", "auto");
    root.putObject("metadata");
    root.putArray("tools");
    ObjectNode message = root.putArray("output").addObject().put("type", "message").put("id", "msg_" + id)
        .put("status", "completed").put("role", "assistant");
    message.putArray("content").addObject().put("type", "output_text").put("text", text).putArray("annotations");
    ObjectNode u = root.putObject("usage").put("input_tokens", usage.promptTokens())
        .put("output_tokens", usage.completionTokens())
        .put("total_tokens", usage.promptTokens() + usage.completionTokens());
    u.putObject("input_tokens_details").put("cached_tokens", usage.cachedTokens());
    u.putObject("output_tokens_details").put("reasoning_tokens", 0);
    return root;
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
