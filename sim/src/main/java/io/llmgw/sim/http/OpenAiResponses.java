package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.SequenceListener.Usage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
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
      case RESPONSES -> ResponsesShapes.response(r, id, created, text, finish, usage, null);
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

  /**
   * A chat answer that calls a tool, as vLLM answers: content null for a call the model chose ({@code auto}), empty
   * for a forced one; one call with the arguments generated so far.
   */
  static ObjectNode wholeToolCall(OpenAiRequest r, String id, long created, Plan plan, String arguments,
      String finish, Usage usage) {
    ObjectNode root = header(r, id, created, "chat.completion");
    ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
    ObjectNode message = choice.putObject("message").put("role", "assistant");
    content(message, plan);
    message.putArray("tool_calls").add(toolCall(plan, arguments, -1));
    choice.putNull("logprobs");
    choice.put("finish_reason", finish);
    root.set("usage", usage(usage));
    return root;
  }

  /** A tool call: the whole of it, or in a stream ({@code index} 0 or more) the first delta with id and name. */
  private static ObjectNode toolCall(Plan plan, String arguments, int index) {
    ObjectNode call = JSON.createObjectNode();
    if (index >= 0) {
      call.put("index", index);
    }
    call.put("id", "chatcmpl-tool-" + plan.callId()).put("type", "function");
    call.putObject("function").put("name", plan.structure().toolName()).put("arguments", arguments);
    return call;
  }

  private static void content(ObjectNode message, Plan plan) {
    if (plan.structure().kind() == Structured.Kind.TOOL_AUTO) {
      message.putNull("content");
    } else {
      message.put("content", "");
    }
  }

  /**
   * One token of a streamed tool call, as OpenAI streams them: the first delta carries the role, the call's id, type
   * and name and the first characters of its arguments; the next ones only more arguments.
   */
  static ObjectNode toolCallChunk(OpenAiRequest r, String id, long created, Plan plan, String piece, boolean first) {
    ObjectNode root = header(r, id, created, "chat.completion.chunk");
    ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
    ObjectNode delta = choice.putObject("delta");
    if (first) {
      delta.put("role", "assistant");
      content(delta, plan);
      delta.putArray("tool_calls").add(toolCall(plan, piece, 0));
    } else {
      delta.putArray("tool_calls").addObject().put("index", 0).putObject("function").put("arguments", piece);
    }
    choice.putNull("logprobs");
    choice.putNull("finish_reason");
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

  /**
   * A chat or completion usage block. vLLM adds {@code prompt_tokens_details.cached_tokens} only when started with
   * {@code --enable-prompt-tokens-details} and something was cached: a negative {@code cachedTokens} is "not said".
   */
  private static ObjectNode usage(Usage u) {
    ObjectNode n = JSON.createObjectNode().put("prompt_tokens", u.promptTokens())
        .put("completion_tokens", u.completionTokens()).put("total_tokens", u.promptTokens() + u.completionTokens());
    if (u.cachedTokens() > 0) {
      n.putObject("prompt_tokens_details").put("cached_tokens", u.cachedTokens());
    } else {
      n.putNull("prompt_tokens_details");
    }
    return n;
  }
}
