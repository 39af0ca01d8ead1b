package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.sim.engine.SimRequest;
import io.llmgw.sim.engine.SimTokens;
import java.util.SplittableRandom;
import net.openhft.hashing.LongHashFunction;

/**
 * A parsed {@code /v1/chat/completions}, {@code /v1/completions}, {@code /v1/embeddings} or {@code /v1/responses}
 * body: what the engine needs, and how to answer. An embedding is a prefill and one step; {@code inputs} is how many
 * vectors it answers with.
 * The prompt is rendered as text (a chat message as {@code role: content} and a newline) and cut into tokens by
 * {@link SimTokens}; prefix blocks chain {@code blockSize} tokens each from the pod's hash seed and the adapter, as
 * vLLM's block hashes do.
 */
record OpenAiRequest(Api api, String model, String prompt, Integer maxTokens, boolean stream,
    boolean includeUsage, int priority, int inputs, boolean base64, Plan plan, String cacheSalt) {

  /** The OpenAI endpoint the request came to. */
  enum Api { CHAT, COMPLETIONS, EMBEDDINGS, RESPONSES }

  boolean chat() {
    return api == Api.CHAT;
  }

  /** Reads the body, or throws {@link IllegalArgumentException} with a message fit for a 400. */
  static OpenAiRequest parse(Api api, JsonNode body, boolean autoToolChoice, SplittableRandom random) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("the request body must be a JSON object");
    }
    JsonNode model = body.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      throw new IllegalArgumentException("'model' is required and must be a non-empty string");
    }
    if (api == Api.EMBEDDINGS) {
      JsonNode input = body.get("input");
      int inputs = input != null && input.isArray() && !input.isEmpty() && !input.get(0).isNumber() ? input.size() : 1;
      return new OpenAiRequest(api, model.asText(), embeddingInput(input), 1, false, false, 0, inputs,
          base64(body.get("encoding_format")), null, null);
    }
    String prompt = switch (api) {
      // the tools go into the prompt, as a chat template writes them
      case CHAT -> tools(body) + messages(body.get("messages"));
      case RESPONSES -> body.path("instructions").asText("") + tools(body) + responsesInput(body.get("input"));
      default -> prompt(body.get("prompt"));
    };
    Integer maxTokens = null;
    for (String field : new String[] {"max_completion_tokens", "max_tokens", "max_output_tokens"}) {
      JsonNode n = body.get(field);
      if (n != null && !n.isNull()) {
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 1) {
          throw new IllegalArgumentException("'" + field + "' must be a positive integer");
        }
        maxTokens = n.asInt();
        break;
      }
    }
    JsonNode stream = body.get("stream");
    if (stream != null && !stream.isNull() && !stream.isBoolean()) {
      throw new IllegalArgumentException("'stream' must be a boolean");
    }
    JsonNode usage = body.path("stream_options").path("include_usage");
    JsonNode priority = body.get("priority");
    if (priority != null && !priority.isNull() && !(priority.isIntegralNumber() && priority.canConvertToInt())) {
      throw new IllegalArgumentException("'priority' must be an integer");
    }
    boolean streamed = stream != null && stream.asBoolean();
    JsonNode salt = body.get("cache_salt");
    if (salt != null && !salt.isNull() && !(salt.isTextual() && !salt.asText().isEmpty())) {
      throw new IllegalArgumentException("Parameter 'cache_salt' must be a non-empty string if provided.");
    }
    return new OpenAiRequest(api, model.asText(), prompt, maxTokens, streamed, usage.asBoolean(false),
        priority == null || priority.isNull() ? 0 : priority.asInt(), 1, false,
        api == Api.COMPLETIONS ? null : Structured.plan(api, body, autoToolChoice, random),
        salt == null || salt.isNull() ? null : salt.asText());
  }

  /** vLLM's {@code encoding_format}: {@code float} (the default) or {@code base64} (little-endian float32). */
  private static boolean base64(JsonNode format) {
    if (format == null || format.isNull()) {
      return false;
    }
    return switch (format.isTextual() ? format.asText() : "") {
      case "float" -> false;
      case "base64" -> true;
      default -> throw new IllegalArgumentException("'encoding_format' must be 'float' or 'base64'");
    };
  }

  /** A string, strings, or token ids (one list or several): the text the prefill reads. */
  private static String embeddingInput(JsonNode input) {
    if (input == null || input.isNull() || (input.isArray() && input.isEmpty())) {
      throw new IllegalArgumentException("'input' is required: a string, an array of strings, or token ids");
    }
    if (input.isTextual()) {
      return input.asText();
    }
    if (!input.isArray()) {
      throw new IllegalArgumentException("'input' must be a string, an array of strings, or token ids");
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode item : input) {
      if (item.isTextual()) {
        sb.append(item.asText()).append('\n');
      } else if (item.isIntegralNumber()) {
        sb.append("tok "); // about one token each, as the prompt estimate counts
      } else if (item.isArray()) {
        item.forEach(t -> sb.append("tok "));
        sb.append('\n');
      } else {
        throw new IllegalArgumentException("'input' must be a string, an array of strings, or token ids");
      }
    }
    return sb.toString();
  }

  /** The Responses API's {@code input}: a string, or messages whose content is a string or text parts. */
  private static String responsesInput(JsonNode input) {
    if (input != null && input.isTextual()) {
      return input.asText();
    }
    if (input == null || !input.isArray() || input.isEmpty()) {
      throw new IllegalArgumentException("'input' is required: a string or an array of messages");
    }
    return messages(input);
  }

  /**
   * With a {@link #plan}, the answer decided beforehand, its tokens (cut by {@code max_tokens}) are the output.
   *
   * @param modelTokenIds the prompt as the model's own files tokenize it (null: the simulator's tokens)
   */
  SimRequest toEngine(String adapter, int blockSize, long hashSeed, int meanOutputTokens, SplittableRandom random,
      int[] modelTokenIds) {
    int[] tokenIds = modelTokenIds != null ? modelTokenIds : SimTokens.encode(prompt);
    int promptTokens = Math.max(1, tokenIds.length);
    int tokens;
    boolean capped;
    if (plan != null) {
      capped = maxTokens != null && maxTokens < plan.tokens();
      tokens = capped ? maxTokens : plan.tokens();
    } else {
      capped = maxTokens != null;
      tokens = capped ? maxTokens : 1 + random.nextInt(2 * meanOutputTokens - 1);
    }
    return new SimRequest(model, adapter, promptTokens, prefixBlocks(tokenIds, adapter, cacheSalt, blockSize, hashSeed),
        tokens,
        capped, priority, tokenIds);
  }

  /**
   * Chained hashes of the prompt's full blocks, from the pod's seed (vLLM draws its own at random unless
   * {@code PYTHONHASHSEED} is set), the adapter and the request's {@code cache_salt}, as vLLM keys its cache by LoRA
   * and salts the first block's hash (so the whole chain) with the request's salt.
   */
  static long[] prefixBlocks(int[] tokenIds, String adapter, String cacheSalt, int blockSize, long hashSeed) {
    int n = tokenIds.length / blockSize;
    long[] out = new long[n];
    long previous = adapter == null ? hashSeed : LongHashFunction.xx(hashSeed).hashChars(adapter);
    if (cacheSalt != null) {
      previous = LongHashFunction.xx(previous).hashChars(cacheSalt);
    }
    for (int i = 0; i < n; i++) {
      previous = LongHashFunction.xx(previous).hashInts(tokenIds, i * blockSize, blockSize);
      out[i] = previous;
    }
    return out;
  }

  /** The request's tools as a chat template writes them into the prompt. */
  private static String tools(JsonNode body) {
    JsonNode tools = body.path("tools");
    return tools.isArray() && !tools.isEmpty() ? "tools: " + tools + "\n" : "";
  }

  private static String messages(JsonNode messages) {
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new IllegalArgumentException("'messages' is required and must be a non-empty array");
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode m : messages) {
      if (!m.isObject()) {
        throw new IllegalArgumentException("each message must be an object with 'role' and 'content'");
      }
      sb.append(m.path("role").asText("user")).append(": ");
      JsonNode content = m.get("content");
      if (content != null && content.isTextual()) {
        sb.append(content.asText());
      } else if (content != null && content.isArray()) {
        for (JsonNode part : content) {
          sb.append(part.path("text").asText(""));
        }
      } else if (content != null && !content.isNull()) {
        throw new IllegalArgumentException("message 'content' must be a string or an array of parts");
      }
      // an assistant's earlier calls and their results, as a chat template writes them back
      for (String field : new String[] {"tool_calls", "arguments", "output"}) {
        if (m.hasNonNull(field)) {
          sb.append(m.get(field).isTextual() ? m.get(field).asText() : m.get(field).toString());
        }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String prompt(JsonNode prompt) {
    if (prompt == null || prompt.isNull()) {
      throw new IllegalArgumentException("'prompt' is required");
    }
    if (prompt.isTextual()) {
      return prompt.asText();
    }
    if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return prompt.get(0).asText();
    }
    throw new IllegalArgumentException("'prompt' must be a string (or an array holding one string)");
  }
}
