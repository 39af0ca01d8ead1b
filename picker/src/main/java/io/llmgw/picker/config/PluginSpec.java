package io.llmgw.picker.config;

import java.util.Map;

/**
 * One entry of the configuration's {@code plugins} list: a plugin instance of {@code type}, named {@code name} (the
 * type when the configuration gives no name), with its {@code parameters}.
 */
public record PluginSpec(String name, String type, Map<String, Object> parameters) {
  public PluginSpec {
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("a plugin needs a type");
    }
    name = name == null || name.isBlank() ? type : name;
    parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
  }

  public static PluginSpec of(String type) {
    return new PluginSpec(null, type, Map.of());
  }

  public static PluginSpec of(String type, Map<String, Object> parameters) {
    return new PluginSpec(null, type, parameters);
  }
}
