package io.llmgw.batch.dispatch;

import java.nio.charset.StandardCharsets;

/** Reading a gateway's 429 for what it refused: the owner's token budget, or the pool (issue 31). */
final class OverBudget {
  private OverBudget() {}

  /** The owner's budget: OpenAI's {@code rate_limit_exceeded} or {@code insufficient_quota} as the EPP answers them. */
  static boolean isOwners(byte[] body) {
    String s = head(body);
    return s.contains("\"code\":\"rate_limit_exceeded\"") || s.contains("\"code\":\"insufficient_quota\"");
  }

  /** The line alone needs more than the owner's whole budget: no wait will take it. */
  static boolean never(byte[] body) {
    return head(body).contains("\"code\":\"insufficient_quota\"");
  }

  private static String head(byte[] body) {
    return new String(body, 0, Math.min(body.length, 2048), StandardCharsets.UTF_8);
  }
}
