package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.SequenceListener.Usage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

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

  /**
   * vLLM's embeddings answer: one unit vector per input, the same for the same input and model; as a JSON array of
   * floats, or for {@code encoding_format: base64} (the OpenAI SDKs' default) the float32 values little-endian,
   * base64-encoded.
   */
  static ObjectNode embeddings(OpenAiRequest r, String id, long created, Usage usage) {
    ObjectNode root = header(r, id, created, "list");
    ArrayNode data = root.putArray("data");
    String[] inputs = r.prompt().split("\n", -1);
    for (int i = 0; i < r.inputs(); i++) {
      ObjectNode item = data.addObject().put("index", i).put("object", "embedding");
      long seed = net.openhft.hashing.LongHashFunction.xx(r.model().hashCode())
          .hashChars(i < inputs.length ? inputs[i] : "");
      SplittableRandom random = new SplittableRandom(seed);
      double[] x = new double[EMBEDDING_DIMENSIONS];
      double norm = 0;
      for (int d = 0; d < x.length; d++) {
        x[d] = random.nextDouble(-1, 1);
        norm += x[d] * x[d];
      }
      if (r.base64()) {
        ByteBuffer bytes = ByteBuffer.allocate(4 * x.length).order(ByteOrder.LITTLE_ENDIAN);
        for (double value : x) {
          bytes.putFloat((float) (value / Math.sqrt(norm)));
        }
        item.put("embedding", Base64.getEncoder().encodeToString(bytes.array()));
      } else {
        ArrayNode v = item.putArray("embedding");
        for (double value : x) {
          v.add((float) (value / Math.sqrt(norm)));
        }
      }
    }
    root.putObject("usage").put("prompt_tokens", usage.promptTokens()).put("total_tokens", usage.promptTokens())
        .putNull("completion_tokens");
    return root;
  }

  static final int EMBEDDING_DIMENSIONS = 64;

  /** vLLM's Responses API answer: one assistant message with the text. */
  static ObjectNode response(OpenAiRequest r, String id, long created, String text, Usage usage) {
    return responseObject(r, id, created, text, usage);
  }

  /**
   * A Responses API {@code response} object: {@code in_progress} with no output and no usage while {@code text} is
   * null (the start of a stream), else {@code completed} with the one assistant message.
   */
  private static ObjectNode responseObject(OpenAiRequest r, String id, long created, String text, Usage usage) {
    ObjectNode root = JSON.createObjectNode().put("id", id).put("object", "response").put("created_at", created)
        .put("model", r.model()).put("status", text == null ? "in_progress" : "completed").putNull("error")
        .putNull("incomplete_details").putNull("instructions").put("parallel_tool_calls", true)
        .put("temperature", 1.0).put("top_p", 1.0).put("tool_choice", "auto");
    root.putObject("metadata");
    root.putArray("tools");
    ArrayNode output = root.putArray("output");
    if (text == null) {
      root.putNull("usage");
      return root;
    }
    output.add(message(id, text));
    ObjectNode u = root.putObject("usage").put("input_tokens", usage.promptTokens())
        .put("output_tokens", usage.completionTokens())
        .put("total_tokens", usage.promptTokens() + usage.completionTokens());
    u.putObject("input_tokens_details").put("cached_tokens", usage.cachedTokens());
    u.putObject("output_tokens_details").put("reasoning_tokens", 0);
    return root;
  }

  /** The assistant message of a response: {@code in_progress} and empty while {@code text} is null. */
  private static ObjectNode message(String responseId, String text) {
    ObjectNode message = JSON.createObjectNode().put("type", "message").put("id", messageId(responseId))
        .put("status", text == null ? "in_progress" : "completed").put("role", "assistant");
    ArrayNode content = message.putArray("content");
    if (text != null) {
      content.add(outputText(text));
    }
    return message;
  }

  private static String messageId(String responseId) {
    return "msg_" + responseId;
  }

  private static ObjectNode outputText(String text) {
    ObjectNode part = JSON.createObjectNode().put("type", "output_text").put("text", text);
    part.putArray("annotations");
    part.putArray("logprobs");
    return part;
  }

  /**
   * The events of a streamed Responses API call before its first token, in vLLM's order: {@code response.created},
   * {@code response.in_progress}, {@code response.output_item.added} (the message), {@code response.content_part.added}
   * (its text part). Numbered from {@code seq} on.
   */
  static List<ObjectNode> responseStart(OpenAiRequest r, String id, long created) {
    ObjectNode inProgress = responseObject(r, id, created, null, null);
    List<ObjectNode> out = new ArrayList<>();
    out.add(event("response.created").set("response", inProgress));
    out.add(event("response.in_progress").set("response", inProgress));
    out.add(event("response.output_item.added").put("output_index", 0).set("item", message(id, null)));
    out.add(event("response.content_part.added").put("output_index", 0).put("item_id", messageId(id))
        .put("content_index", 0).set("part", outputText("")));
    return out;
  }

  /** One token of a streamed Responses API call. */
  static ObjectNode responseDelta(String id, String token) {
    ObjectNode e = event("response.output_text.delta").put("content_index", 0).put("output_index", 0)
        .put("item_id", messageId(id)).put("delta", token);
    e.putArray("logprobs");
    return e;
  }

  /**
   * The closing events, in vLLM's order: {@code response.output_text.done}, {@code response.content_part.done},
   * {@code response.output_item.done}, {@code response.completed} (the whole response, with usage).
   */
  static List<ObjectNode> responseEnd(OpenAiRequest r, String id, long created, String text, Usage usage) {
    List<ObjectNode> out = new ArrayList<>();
    ObjectNode done = event("response.output_text.done").put("item_id", messageId(id)).put("output_index", 0)
        .put("content_index", 0).put("text", text);
    done.putArray("logprobs");
    out.add(done);
    out.add(event("response.content_part.done").put("item_id", messageId(id)).put("output_index", 0)
        .put("content_index", 0).set("part", outputText(text)));
    out.add(event("response.output_item.done").put("output_index", 0).set("item", message(id, text)));
    out.add(event("response.completed").set("response", responseObject(r, id, created, text, usage)));
    return out;
  }

  private static ObjectNode event(String type) {
    return JSON.createObjectNode().put("type", type);
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
