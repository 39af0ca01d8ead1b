package io.llmgw.picker.config;

/** A plugin's parameter that cannot be used; names both, so that a file's reader can point at the line. */
public final class ParameterException extends IllegalArgumentException {
  private final String plugin;
  private final String parameter;

  public ParameterException(String plugin, String parameter, String message) {
    super(message);
    this.plugin = plugin;
    this.parameter = parameter;
  }

  /** The plugin's name in its file (its type when it has no name). */
  public String plugin() {
    return plugin;
  }

  /** The parameter, or empty when the problem is the plugin's parameters as a whole. */
  public String parameter() {
    return parameter;
  }
}
