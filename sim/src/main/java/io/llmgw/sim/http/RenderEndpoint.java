package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.sim.engine.SimTokens;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.util.SplittableRandom;

/**
 * vLLM's render endpoints ({@code vllm launch render}, the tokenizer sidecar llm-d's {@code token-producer} calls):
 * {@code POST /v1/chat/completions/render} answers the prompt's token ids as one object, {@code
 * /v1/completions/render} as a list with one object per prompt. The ids are what this pod would cache for the request
 * (its prompt rendered and tokenized as {@link OpenAiRequest} and {@link SimTokens} do). The simulator answers
 * {@code token_ids} only: no multimodal features, no sampling parameters echoed.
 */
final class RenderEndpoint {
  static final String CHAT_PATH = "/v1/chat/completions/render";
  static final String COMPLETIONS_PATH = "/v1/completions/render";

  private RenderEndpoint() {}

  /** Answers one render request: its token ids, or a 400 naming what is wrong. */
  static void answer(HttpServerRequest req, Buffer bytes, ChatTokenizer model) {
    JsonNode answer;
    try {
      answer = render(req.path(), SimHttp.readJson(bytes), model);
    } catch (IllegalArgumentException e) {
      SimHttp.error(req.response(), 400, "BadRequestError", e.getMessage());
      return;
    }
    SimHttp.json(req.response(), 200, answer);
  }

  /** The answer's body; {@link IllegalArgumentException} with a message fit for a 400. */
  static JsonNode render(String path, JsonNode body, ChatTokenizer model) {
    boolean chat = path.equals(CHAT_PATH);
    // rendering decides no tool call: a request with tools renders whether or not the server serves auto
    OpenAiRequest request = OpenAiRequest.parse(chat ? OpenAiRequest.Api.CHAT : OpenAiRequest.Api.COMPLETIONS, body,
        true, new SplittableRandom(0));
    ObjectNode one = OpenAiResponses.JSON.createObjectNode();
    var ids = one.putArray("token_ids");
    int[] modelIds = ModelPrompts.tokenIds(model, chat ? OpenAiRequest.Api.CHAT : OpenAiRequest.Api.COMPLETIONS, body);
    for (int id : modelIds != null ? modelIds : SimTokens.encode(request.prompt())) {
      ids.add(id);
    }
    return chat ? one : OpenAiResponses.JSON.createArrayNode().add(one);
  }
}
