package io.llmgw.picker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.PluginId;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.Pods;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Assembling a profile from a configuration, and every way a careless configuration is refused. */
class PluginRegistryTest {
  final PluginEnv env = new PluginEnv(Clock.fixed(Pods.NOW, ZoneOffset.UTC), Ticker.system(), () -> new Random(1),
      Duration.ofSeconds(2), 3, PluginTimings.NONE);
  final List<String> warnings = new ArrayList<>();

  private SchedulingProfile build(List<PluginSpec> plugins, List<ProfileSpec.Ref> refs) {
    return PluginRegistry.builtIn().build(new SchedulingConfig("test.yaml", plugins, List.of(new ProfileSpec("p",
        refs))), env, warnings::add);
  }

  private void refused(List<PluginSpec> plugins, List<ProfileSpec.Ref> refs, String... messageParts) {
    assertThatThrownBy(() -> build(plugins, refs)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("test.yaml: ").hasMessageContainingAll(messageParts);
  }

  @Test
  void theReferenceEppsPluginsBuildWithTheirNamesWeightsAndParameters() {
    SchedulingProfile p = build(List.of(PluginSpec.of("queue-scorer"), PluginSpec.of("kv-cache-scorer"),
        PluginSpec.of("prefix-cache-scorer", Map.of("hashBlockSize", 32, "maxPrefixBlocksToMatch", 8,
            "lruCapacityPerServer", 100)),
        new PluginSpec("picker", "max-score-picker", Map.of("maxNumOfEndpoints", 1)),
        PluginSpec.of("single-profile-handler")),
        List.of(ProfileSpec.Ref.to("queue-scorer", 2), ProfileSpec.Ref.to("kv-cache-scorer", 2),
            ProfileSpec.Ref.to("prefix-cache-scorer", 3), ProfileSpec.Ref.to("picker")));
    assertThat(p.plugins()).contains(new PluginId("kv-cache-scorer", "kv-cache-scorer"),
        new PluginId("max-score-picker", "picker"));
    assertThat(p.prefixHasher().maxBytes()).isEqualTo(32 * 8);
    assertThat(warnings).isEmpty();
  }

  @Test
  void requiredFiltersTheProfileListsStayWhereListedAndTheOthersComeFirst() {
    SchedulingProfile p = build(List.of(PluginSpec.of("fresh-metrics-filter"), PluginSpec.of("queue-scorer")),
        List.of(ProfileSpec.Ref.to("fresh-metrics-filter"), ProfileSpec.Ref.to("queue-scorer")));
    assertThat(p.plugins()).extracting(PluginId::type).containsExactly("subset-hint-filter",
        "adapter-residency-filter", "latency-objective-filter", "fresh-metrics-filter", "queue-scorer",
        "max-score-picker");
  }

  @Test
  void anUnknownTypeIsRefusedWithTheKnownOnes() {
    refused(List.of(PluginSpec.of("no-hit-lru-scorer")), List.of(),
        "'no-hit-lru-scorer' is not known", "queue-scorer", "lora-packing-scorer");
  }

  @Test
  void anUnknownOrUnusableParameterIsRefusedNamingThePlugin() {
    refused(List.of(PluginSpec.of("prefix-cache-scorer", Map.of("lruCapacityPerSever", 5))), List.of(),
        "plugin prefix-cache-scorer: unknown parameter [lruCapacityPerSever]", "lruCapacityPerServer");
    refused(List.of(PluginSpec.of("lora-packing-scorer", Map.of("pendingThreshold", "many"))), List.of(),
        "parameter pendingThreshold is 'many', expected a number");
    refused(List.of(PluginSpec.of("max-score-picker", Map.of("maxNumOfEndpoints", 0))), List.of(),
        "maxNumOfEndpoints is '0', expected between 1 and 100");
    refused(List.of(PluginSpec.of("queue-scorer", Map.of("x", 1))), List.of(), "it takes none");
  }

  @Test
  void profileMistakesAreRefused() {
    refused(List.of(PluginSpec.of("queue-scorer")), List.of(ProfileSpec.Ref.to("kv")),
        "refers to plugin 'kv', which the plugins list does not define");
    refused(List.of(PluginSpec.of("queue-scorer")), List.of(ProfileSpec.Ref.to("queue-scorer"),
        ProfileSpec.Ref.to("queue-scorer")), "lists plugin 'queue-scorer' twice");
    refused(List.of(PluginSpec.of("fresh-metrics-filter")), List.of(ProfileSpec.Ref.to("fresh-metrics-filter", 2)),
        "only scorers take a weight");
    refused(List.of(PluginSpec.of("queue-scorer")), List.of(ProfileSpec.Ref.to("queue-scorer", -1)),
        "weight -1.0 is not between 0 and 1000000");
    refused(List.of(PluginSpec.of("max-score-picker"), PluginSpec.of("random-picker")),
        List.of(ProfileSpec.Ref.to("max-score-picker"), ProfileSpec.Ref.to("random-picker")), "has two pickers");
    refused(List.of(PluginSpec.of("single-profile-handler")), List.of(ProfileSpec.Ref.to("single-profile-handler")),
        "does not belong in a profile");
    refused(List.of(PluginSpec.of("queue-scorer"), PluginSpec.of("queue-scorer")), List.of(),
        "two plugins are named 'queue-scorer'");
  }

  @Test
  void exactlyOneProfileIsRequired() {
    PluginRegistry r = PluginRegistry.builtIn();
    assertThatThrownBy(() -> r.build(new SchedulingConfig("f", List.of(), List.of()), env, warnings::add))
        .hasMessageContaining("schedulingProfiles is empty");
    ProfileSpec one = new ProfileSpec("a", List.of());
    assertThatThrownBy(() -> r.build(new SchedulingConfig("f", List.of(), List.of(one, one)), env, warnings::add))
        .hasMessageContaining("defines 2 scheduling profiles");
  }

  @Test
  void aDeclaredPluginNoProfileUsesIsWarnedAbout() {
    build(List.of(PluginSpec.of("queue-scorer"), PluginSpec.of("kv-cache-utilization-scorer")),
        List.of(ProfileSpec.Ref.to("queue-scorer")));
    assertThat(warnings).containsExactly(
        "test.yaml: plugin kv-cache-utilization-scorer is declared but no profile uses it");
  }

  @Test
  void everyShorthandBuilds() {
    for (PolicyShorthand s : PolicyShorthand.values()) {
      assertThat(PluginRegistry.builtIn().build(s.config(50), env, warnings::add).plugins()).isNotEmpty();
      assertThat(PolicyShorthand.parse(s.cliName())).isEqualTo(s);
    }
    assertThat(warnings).isEmpty();
  }
}
