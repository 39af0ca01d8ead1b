package io.llmgw.picker.attributes;

import io.llmgw.picker.latency.ObjectiveCheck;

/**
 * The attributes the shipped plugins read, each with the producer that makes it by default. A new per-request input
 * is one more key here, one producer, and the plugins that declare they consume it.
 */
public final class RequestAttributes {
  /** The prompt's leading blocks, hashed per target for prefix-cache affinity. */
  public static final AttributeKey<PromptBlocks> PROMPT_BLOCKS = AttributeKey.of("prompt-blocks", PromptBlocks.class,
      "prompt-blocks-producer");
  /** The prompt as the engine tokenizes it, for matching the engines' own KV-cache events. */
  public static final AttributeKey<PromptTokens> PROMPT_TOKENS = AttributeKey.of("prompt-tokens", PromptTokens.class,
      "prompt-tokens-producer");
  /** The session the request belongs to (a header, or OpenAI's {@code user} field when configured). */
  public static final AttributeKey<String> SESSION_ID = AttributeKey.of("session-id", String.class,
      "session-id-producer");
  /** The output the request allows ({@code max_tokens} or {@code max_completion_tokens}), when it says. */
  public static final AttributeKey<Integer> MAX_OUTPUT_TOKENS = AttributeKey.of("max-output-tokens", Integer.class,
      "max-tokens-producer");
  /**
   * The request's latency limits against each endpoint's predicted latency, for what is left of them after any wait;
   * {@linkplain ObjectiveCheck#spent() spent} when it waited them out; absent without limits.
   */
  public static final AttributeKey<ObjectiveCheck> OBJECTIVE = AttributeKey.of("objective-check", ObjectiveCheck.class,
      "objective-check-producer");

  private RequestAttributes() {}
}
