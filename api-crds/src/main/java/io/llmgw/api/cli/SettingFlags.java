package io.llmgw.api.cli;

import io.llmgw.api.SettingException;
import java.util.Map;

/**
 * A command's map from the settings its libraries name ({@code requests.maxBodyBytes}) to its own flags
 * ({@code --max-body-bytes}): a library says which setting is wrong, the command says which flag set it.
 */
public record SettingFlags(Map<String, String> flags) {
  public SettingFlags {
    flags = Map.copyOf(flags);
  }

  /** The problem in the command's words: each setting it names is the flag that sets it, where there is one. */
  public String explain(SettingException e) {
    String flag = flags.get(e.setting());
    String text = (flag != null ? flag : "setting " + e.setting()) + " " + e.problem();
    // longest first: listen.peersInsecure before listen.peers
    for (var f : flags.entrySet().stream()
        .sorted((a, b) -> Integer.compare(b.getKey().length(), a.getKey().length())).toList()) {
      text = text.replace(f.getKey(), f.getValue());
    }
    return text;
  }

  /** The message of any failure, a setting's in the command's words. */
  public String explain(RuntimeException e) {
    return e instanceof SettingException s ? explain(s) : e.getMessage();
  }
}
