package io.llmgw.picker.config;

import java.util.List;

/**
 * The scheduling part of an EPP's plugin configuration, in the reference EPP's shape ({@code EndpointPickerConfig}):
 * plugin instances by type with parameters, and scheduling profiles that reference them.
 *
 * @param source where it came from, for messages ({@code --policy seed}, a file's path)
 */
public record SchedulingConfig(String source, List<PluginSpec> plugins, List<ProfileSpec> profiles) {
  public SchedulingConfig {
    plugins = List.copyOf(plugins);
    profiles = List.copyOf(profiles);
  }
}
