package io.llmgw.picker.config;

import java.util.List;

/** One entry of {@code schedulingProfiles}: the plugins it runs, by reference, scorers with their weights. */
public record ProfileSpec(String name, List<Ref> plugins) {
  /** @param weight a scorer's weight (null: 1); must be absent for filters and pickers */
  public record Ref(String pluginRef, Double weight) {
    public static Ref to(String pluginRef) {
      return new Ref(pluginRef, null);
    }

    public static Ref to(String pluginRef, double weight) {
      return new Ref(pluginRef, weight);
    }
  }

  public ProfileSpec {
    plugins = List.copyOf(plugins);
  }
}
