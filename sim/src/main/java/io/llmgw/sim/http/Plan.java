package io.llmgw.sim.http;

import io.llmgw.sim.engine.SimTokens;

/**
 * An answer whose text is decided before the engine runs (structured output, a tool's arguments): the engine then
 * generates exactly its tokens, as the simulator's tokenizer counts them, or fewer where {@code max_tokens} cuts it,
 * and each generated token carries the text's next {@value SimTokens#CHARS_PER_TOKEN} characters.
 *
 * @param callId what makes the tool call's ids unique (vLLM's {@code chatcmpl-tool-}, the Responses API's {@code call_}
 *     and {@code fc_} before it); null for content
 */
record Plan(Structured structure, String callId, String text) {
  /** Tokens the whole text takes. */
  int tokens() {
    return Math.max(1, SimTokens.encode(text).length);
  }

  /** Token {@code index}'s characters. */
  String piece(int index) {
    int from = Math.min(text.length(), index * SimTokens.CHARS_PER_TOKEN);
    return text.substring(from, Math.min(text.length(), from + SimTokens.CHARS_PER_TOKEN));
  }

  /** The text of the first {@code generated} tokens: all of it unless {@code max_tokens} cut it. */
  String upTo(int generated) {
    return text.substring(0, Math.min(text.length(), generated * SimTokens.CHARS_PER_TOKEN));
  }

  boolean toolCall() {
    return structure.kind() != Structured.Kind.JSON;
  }

  /** vLLM's finish reason: {@code tool_calls} for a call the model chose, else the engine's. */
  String finish(String engineReason) {
    return structure.kind() == Structured.Kind.TOOL_AUTO && engineReason.equals("stop") ? "tool_calls" : engineReason;
  }
}
