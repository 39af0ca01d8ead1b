package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.chattemplate.jinja.TemplateException;

/**
 * A prompt's token ids as vLLM serving a real model computes them (the simulator's {@code --tokenizer hf:DIR}): chat and
 * Responses requests rendered with the model's chat template, completions tokenized with its special tokens, a prompt
 * of token ids taken as it is. Block hashes, KV-cache events and usage then count real tokens, so the gateway's own
 * tokenizing of the same files can be held to them.
 */
final class ModelPrompts {
  private ModelPrompts() {
  }

  /**
   * @return null without a model, or for embeddings (the simulator's tokens stand in)
   * @throws IllegalArgumentException for what vLLM would answer with a 400, the template's refusal included
   */
  static int[] tokenIds(ChatTokenizer model, OpenAiRequest.Api api, JsonNode body) {
    if (model == null) {
      return null;
    }
    try {
      return switch (api) {
        case CHAT -> model.encodeRendered(model.render(body));
        case RESPONSES -> model.encodeRendered(model.renderResponses(body));
        case COMPLETIONS -> model.completionIds(body.path("prompt")); // several prompts: the simulator's tokens
        case EMBEDDINGS -> null;
      };
    } catch (TemplateException e) {
      throw new IllegalArgumentException("the chat template cannot render this request: " + e.getMessage(), e);
    }
  }
}
