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
  /** Anything else: a tokenizer or template failure (named in a warning). */
  FAILED;

  /** Its label in {@code llmgw_prompt_tokenizations_total}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
