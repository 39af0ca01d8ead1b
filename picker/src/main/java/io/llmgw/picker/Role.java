package io.llmgw.picker;

import java.util.Locale;

/**
 * What a pod does in disaggregated serving, from its {@code llm-d.ai/role} label as llm-d names it: {@code prefill}
 * pods compute prompts whose KV cache a decode pod then pulls; {@code decode} pods generate (and, when the EPP does not
 * split a request, prefill it themselves); {@code both}, or no label, serve whole requests.
 */
public enum Role {
  BOTH, PREFILL, DECODE;

  /** The pod label that carries the role. */
  public static final String LABEL = "llm-d.ai/role";

  /** The role a label value names; null for a value that names none (the caller says so and treats the pod as both). */
  public static Role ofLabel(String value) {
    if (value == null) {
      return BOTH;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "prefill" -> PREFILL;
      case "decode" -> DECODE;
      case "both", "" -> BOTH;
      default -> null;
    };
  }

  /** Whether the pod generates tokens for the requests routed to it (decode and both do). */
  public boolean decodes() {
    return this != PREFILL;
  }
}
