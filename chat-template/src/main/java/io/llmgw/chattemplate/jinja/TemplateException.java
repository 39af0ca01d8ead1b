package io.llmgw.chattemplate.jinja;

/**
 * A template that cannot be parsed or rendered: a syntax error (with its position), an undefined value used where
 * Jinja refuses one, a type Python would refuse, a limit passed, or the template's own {@code raise_exception}.
 */
public final class TemplateException extends RuntimeException {
  private final boolean raisedByTemplate;

  TemplateException(String message) {
    this(message, false);
  }

  TemplateException(String message, boolean raisedByTemplate) {
    super(message, null, false, false);
    this.raisedByTemplate = raisedByTemplate;
  }

  /** True when the template itself refused the input ({@code raise_exception}), as it would in vLLM. */
  public boolean raisedByTemplate() {
    return raisedByTemplate;
  }
}
