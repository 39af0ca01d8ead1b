package io.llmgw.api;

/** What went wrong at the bottom of a chain of exceptions, for a one-line message to a person. */
public final class Causes {
  private Causes() {}

  /** The innermost cause's message, or its class's name when it has none ("Address already in use", not a wrapper). */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
