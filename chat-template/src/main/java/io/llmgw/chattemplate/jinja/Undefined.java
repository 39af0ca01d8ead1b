package io.llmgw.chattemplate.jinja;

/**
 * A value the template asked for that is not there, as Jinja's default {@code Undefined}: false, empty, printed as
 * nothing, iterated as nothing; reading an attribute of it, or computing with it, is an error.
 */
record Undefined(String name) {
  @Override
  public String toString() {
    return "";
  }

  TemplateException error() {
    return new TemplateException("'" + name + "' is undefined");
  }
}
