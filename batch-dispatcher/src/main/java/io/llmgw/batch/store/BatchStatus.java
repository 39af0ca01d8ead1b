package io.llmgw.batch.store;

import java.util.Locale;

/** A batch's life, as OpenAI's Batch API names it: validating → in_progress → finalizing → a final status. */
public enum BatchStatus {
  VALIDATING, FAILED, IN_PROGRESS, FINALIZING, COMPLETED, EXPIRED, CANCELLING, CANCELLED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean terminal() {
    return this == FAILED || this == COMPLETED || this == EXPIRED || this == CANCELLED;
  }

  /** Its name on the wire or in a store, or null for anything else. */
  public static BatchStatus parse(String wire) {
    for (BatchStatus s : values()) {
      if (s.wire().equals(wire)) {
        return s;
      }
    }
    return null;
  }
}
