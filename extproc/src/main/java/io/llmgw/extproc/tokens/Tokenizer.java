package io.llmgw.extproc.tokens;

/**
 * Turns a request's prompt into the token ids its model server computes its KV cache over, so that prompts can be
 * matched against the engines' own KV-cache events. An implementation renders the prompt as the engine does (its chat
 * template) and tokenizes the result with the engine's tokenizer.
 */
public interface Tokenizer {
  /** No tokenizer (the default): every prompt is matched approximately, whatever the pods' events say. */
  Tokenizer NONE = new Tokenizer() {
    @Override
    public String name() {
      return "none";
    }

    @Override
    public int[] tokenIds(byte[] promptJson, boolean whole) {
      return null;
    }
  };

  /** Its name in configuration ({@code prompt-tokens-producer}'s {@code tokenizer} parameter). */
  String name();

  /**
   * The prompt's token ids, or null when this prompt cannot be tokenized (the request falls back to approximate
   * prefix matching).
   *
   * @param promptJson the body's {@code messages} or {@code prompt} value as JSON bytes, perhaps cut short
   * @param whole false when {@code promptJson} was cut short: only ids that cannot change with more input are answered
   */
  int[] tokenIds(byte[] promptJson, boolean whole);
}
