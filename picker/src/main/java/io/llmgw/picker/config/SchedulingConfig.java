package io.llmgw.picker.config;

import java.util.ArrayList;
import java.util.List;

/**
 * An EPP's plugin configuration, in the reference EPP's shape ({@code EndpointPickerConfig}): plugin instances by type
 * with parameters, of every extension point, and scheduling profiles that reference the filters, scorers and pickers.
 *
 * @param source where it came from, for messages ({@code --policy seed}, a file's path)
 */
public record SchedulingConfig(String source, List<PluginSpec> plugins, List<ProfileSpec> profiles) {
  public SchedulingConfig {
    plugins = List.copyOf(plugins);
    profiles = List.copyOf(profiles);
  }

  /** This configuration with one more plugin that no profile lists (a producer, a hook, …). */
  public SchedulingConfig withPlugin(PluginSpec plugin) {
    List<PluginSpec> morePlugins = new ArrayList<>(plugins);
    morePlugins.add(plugin);
    return new SchedulingConfig(source, morePlugins, profiles);
  }

  /** Whether a plugin of this type is listed. */
  public boolean lists(String type) {
    return plugins.stream().anyMatch(p -> p.type().equals(type));
  }

  /**
   * This configuration with one more scorer in every profile, at {@code weight}: how a command-line switch such as
   * {@code --session-affinity} adds to whatever policy or file chose the rest.
   */
  public SchedulingConfig withScorer(PluginSpec scorer, double weight, String sourceNote) {
    List<PluginSpec> morePlugins = new ArrayList<>(plugins);
    morePlugins.add(scorer);
    List<ProfileSpec> moreProfiles = new ArrayList<>();
    for (ProfileSpec p : profiles) {
      List<ProfileSpec.Ref> refs = new ArrayList<>(p.plugins());
      refs.add(ProfileSpec.Ref.to(scorer.name(), weight));
      moreProfiles.add(new ProfileSpec(p.name(), refs));
    }
    return new SchedulingConfig(source + sourceNote, morePlugins, moreProfiles);
  }
}
