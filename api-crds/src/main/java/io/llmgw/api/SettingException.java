package io.llmgw.api;

/**
 * A setting a library cannot work with, named as the settings name it ({@code budget.baseline}), not as a command-line
 * flag: the command that took the value from a flag says which flag ({@link #setting} to its own option).
 */
public final class SettingException extends IllegalArgumentException {
  private final String setting;
  private final String problem;

  public SettingException(String setting, String problem) {
    super("setting " + setting + " " + problem);
    this.setting = setting;
    this.problem = problem;
  }

  public String setting() {
    return setting;
  }

  public String problem() {
    return problem;
  }
}
