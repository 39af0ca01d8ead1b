package io.llmgw.picker;

/** One configured plugin: its type and the name the configuration gave it (the type when it gave none). */
public record PluginId(String type, String name) {
  public static PluginId of(Plugin plugin) {
    return new PluginId(plugin.type(), plugin.type());
  }

  @Override
  public String toString() {
    return name.equals(type) ? type : name + " (" + type + ")";
  }
}
