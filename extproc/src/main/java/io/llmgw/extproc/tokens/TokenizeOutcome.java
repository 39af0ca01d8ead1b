package io.llmgw.extproc.tokens;

import java.util.Locale;

/** How a request's prompt tokenizing ended; every one but {@link #TOKENIZED} leaves it matched approximately. */
public enum TokenizeOutcome {
  /** The prompt's token ids, as the engine computes them. */
  TOKENIZED,
  /** All permitted requests were being tokenized already. */
  BUSY,
  /** Not done within the time bound (the work still ends: every template and input is bounded). */
  TIMEOUT,
  /** The request is one the engine would refuse, or one whose prompt lives in the engine (named in a warning). */
  REFUSED,
  /**
   * The prompt holds an image, audio or video: the engine keys the blocks that hold it with the media's hash, which
   * only the engine computes. Matched approximately, on the body's bytes, media included, so that requests with other
   * media never count as sharing their blocks.
   */
  MULTIMODAL,
  /** Anything else: a tokenizer or template failure (named in a warning). */
  FAILED;

  /** Its label in {@code llmgw_prompt_tokenizations_total}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
