package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.sim.engine.SimRequest;
import java.util.SplittableRandom;
import net.openhft.hashing.LongHashFunction;

/**
 * A parsed {@code /v1/chat/completions} or {@code /v1/completions} body: what the engine needs, and how to answer.
 * Tokens are approximated as 4 characters, prefix blocks as {@code blockSize × 4} characters, as GIE's prefix scorer
 * does, so prefix-aware routing and the simulated cache agree on what a shared prefix is.
 */
record OpenAiRequest(boolean chat, String model, String prompt, Integer maxTokens, boolean stream,
    boolean includeUsage, int priority) {

  static final int CHARS_PER_TOKEN = 4;

  /** Reads the body, or throws {@link IllegalArgumentException} with a message fit for a 400. */
  static OpenAiRequest parse(boolean chat, JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("the request body must be a JSON object");
    }
    JsonNode model = body.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      throw new IllegalArgumentException("'model' is required and must be a non-empty string");
    }
    String prompt = chat ? messages(body.get("messages")) : prompt(body.get("prompt"));
    Integer maxTokens = null;
    for (String field : new String[] {"max_completion_tokens", "max_tokens"}) {
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
    return new OpenAiRequest(chat, model.asText(), prompt, maxTokens, stream != null && stream.asBoolean(),
        usage.asBoolean(false), priority == null || priority.isNull() ? 0 : priority.asInt());
  }

  SimRequest toEngine(String adapter, int blockSize, int meanOutputTokens, SplittableRandom random) {
    int promptTokens = Math.max(1, (prompt.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
    int tokens = maxTokens != null ? maxTokens : 1 + random.nextInt(2 * meanOutputTokens - 1);
    return new SimRequest(model, adapter, promptTokens, prefixBlocks(adapter, blockSize * CHARS_PER_TOKEN), tokens,
        maxTokens != null, priority);
  }

  /** Chained hashes of the prompt's full blocks; the chain starts from the adapter, as vLLM keys its cache by LoRA. */
  long[] prefixBlocks(String adapter, int blockChars) {
    int n = prompt.length() / blockChars;
    long[] out = new long[n];
    long previous = adapter == null ? 0 : LongHashFunction.xx().hashChars(adapter);
    for (int i = 0; i < n; i++) {
      previous = LongHashFunction.xx(previous).hashChars(prompt, i * blockChars, blockChars);
      out[i] = previous;
    }
    return out;
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
