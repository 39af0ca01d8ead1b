package io.llmgw.picker.config;

import io.llmgw.picker.pickers.MaxScorePicker;
import io.llmgw.picker.pickers.RandomPicker;
import io.llmgw.picker.pickers.RoundRobinPicker;
import io.llmgw.picker.scorers.KvCacheScorer;
import io.llmgw.picker.scorers.LatencyScorer;
import io.llmgw.picker.scorers.LeastRequestScorer;
import io.llmgw.picker.scorers.LoraAffinityScorer;
import io.llmgw.picker.scorers.LoraPackingScorer;
import io.llmgw.picker.scorers.PrecisePrefixCacheScorer;
import io.llmgw.picker.scorers.PrefixCacheScorer;
import io.llmgw.picker.scorers.QueueScorer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --policy} names, each short for a plugin configuration: the same factories build both, so a file that
 * spells one out picks exactly as the shorthand does.
 */
public enum PolicyShorthand {
  /** The seed policy: pack each adapter onto few pods up to a pending threshold (the default). */
  SEED,
  /** The reference EPP's scorer set with its documented weights: queue 2, kv-cache 2, prefix-cache 3, lora-affinity 1. */
  SCORERS,
  /**
   * The scorer set with llm-d's precise prefix-cache scorer in place of the approximate one: prefixes matched against
   * what the pods' own KV-cache events report (every replica alike), the approximate index for pods without events.
   */
  PRECISE,
  /**
   * The predicted-latency scorer (the pod where the request's latency and the delay it adds to others are least), with
   * the LoRA-affinity scorer at the same weight: a request's own latency does not show the batch slot its adapter takes
   * from later requests, and without it adapters spread and swap (bench/README.md).
   */
  LATENCY,
  /** Baselines for benchmarks: what a plain Service does, any endpoint, fewest in flight. */
  ROUND_ROBIN, RANDOM, LEAST_REQUEST;

  /** Accepts the command-line spelling: {@code seed}, {@code scorers}, {@code round-robin}, … */
  public static PolicyShorthand parse(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** @param pendingThreshold the seed policy's threshold (ignored by the others) */
  public SchedulingConfig config(int pendingThreshold) {
    List<PluginSpec> plugins = new ArrayList<>();
    List<ProfileSpec.Ref> refs = new ArrayList<>();
    switch (this) {
      case SEED -> scorer(plugins, refs, PluginSpec.of(LoraPackingScorer.TYPE,
          Map.of("pendingThreshold", pendingThreshold)), 1);
      case SCORERS -> {
        scorer(plugins, refs, PluginSpec.of(QueueScorer.TYPE), 2);
        scorer(plugins, refs, PluginSpec.of(KvCacheScorer.TYPE), 2);
        scorer(plugins, refs, PluginSpec.of(PrefixCacheScorer.TYPE), 3);
        scorer(plugins, refs, PluginSpec.of(LoraAffinityScorer.TYPE), 1);
      }
      case PRECISE -> {
        scorer(plugins, refs, PluginSpec.of(QueueScorer.TYPE), 2);
        scorer(plugins, refs, PluginSpec.of(KvCacheScorer.TYPE), 2);
        scorer(plugins, refs, PluginSpec.of(PrecisePrefixCacheScorer.TYPE), 3);
        scorer(plugins, refs, PluginSpec.of(LoraAffinityScorer.TYPE), 1);
      }
      case LATENCY -> {
        scorer(plugins, refs, PluginSpec.of(LatencyScorer.TYPE), 1);
        scorer(plugins, refs, PluginSpec.of(LoraAffinityScorer.TYPE), 1);
      }
      case LEAST_REQUEST -> scorer(plugins, refs, PluginSpec.of(LeastRequestScorer.TYPE), 1);
      case ROUND_ROBIN, RANDOM -> {}
    }
    String picker = switch (this) {
      case ROUND_ROBIN -> RoundRobinPicker.TYPE;
      case RANDOM -> RandomPicker.TYPE;
      default -> MaxScorePicker.TYPE;
    };
    plugins.add(PluginSpec.of(picker));
    refs.add(ProfileSpec.Ref.to(picker));
    String source = "--policy " + cliName() + (this == SEED ? " (pending threshold " + pendingThreshold + ")" : "");
    return new SchedulingConfig(source, plugins, List.of(new ProfileSpec("default", refs)));
  }

  private static void scorer(List<PluginSpec> plugins, List<ProfileSpec.Ref> refs, PluginSpec spec, double weight) {
    plugins.add(spec);
    refs.add(ProfileSpec.Ref.to(spec.name(), weight));
  }
}
