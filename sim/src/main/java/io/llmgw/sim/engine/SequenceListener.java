package io.llmgw.sim.engine;

/** Receives one sequence's tokens, on the engine's thread. */
public interface SequenceListener {
  void onToken(String text, int index);

  void onFinished(Usage usage, String finishReason);

  record Usage(int promptTokens, int completionTokens, int cachedTokens) {}
}
