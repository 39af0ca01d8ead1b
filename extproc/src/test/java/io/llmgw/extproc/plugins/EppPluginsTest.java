package io.llmgw.extproc.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * One registry and one configuration for every extension point: the shipped default file is the wiring the EPP runs
 * by default, a configuration may reorder or drop optional lifecycle plugins, and what the lifecycle needs is put
 * back.
 */
class EppPluginsTest {
  static Map<String, List<String>> lifecycle(SchedulingConfig config) {
    try (TestGateway g = new TestGateway(TestGateway.settings().withScheduling(config), 1, "")) {
      Map<String, List<PluginId>> byPoint = g.director().plugins();
      Function<String, List<String>> types = point -> byPoint.get(point).stream().map(PluginId::type).toList();
      return Map.of("resolve", types.apply("resolve"), "prepare", types.apply("prepare"), "admission",
          types.apply("admission"), "load", types.apply("load"), "pre_request", types.apply("pre_request"),
          "response", types.apply("response"), "schedule", types.apply("schedule"));
    }
  }

  @Test
  void theShippedDefaultFileIsTheDefaultWiring() {
    Map<String, List<String>> byDefault = lifecycle(PolicyShorthand.SEED.config(50));
    assertThat(byDefault.get("resolve")).containsExactly("weighted-targets", "model-less-variants", "rollout-redirect");
    assertThat(byDefault.get("admission")).containsExactly("tenant-budget", "saturation-shedding", "objective-shedding",
        "flow-control");
    assertThat(byDefault.get("load")).containsExactly("just-in-time-loader");
    assertThat(byDefault.get("pre_request")).containsExactly("in-flight-lease", "adapter-usage", "capacity-arrivals");
    assertThat(byDefault.get("response"))
        .containsExactly("in-flight-lease", "flow-signal", "latency-observation", "request-metrics",
            "tenant-settlement", "cache-prediction");
    assertThat(byDefault.get("prepare")).as("the seed policy's filters and admission read the objective check, flow "
        + "control the fairness id (a tenant's budget reads the output allowed, with tenants on)")
        .containsExactly("objective-check-producer", "fairness-id-producer");
    assertThat(lifecycle(DefaultPlugins.config())).as("the file spells the same out, the seed profile included")
        .isEqualTo(byDefault);
    assertThat(DefaultPlugins.text()).contains("kind: EndpointPickerConfig").contains("required");
  }

  @Test
  void producersAreThoseWhatTheProfileConsumesNeedsInDependencyOrder() {
    Map<String, List<String>> latency = lifecycle(PolicyShorthand.LATENCY.config(50));
    assertThat(latency.get("prepare")).as("blocks before the objective check that judges cached shares")
        .containsExactly("prompt-blocks-producer", "objective-check-producer", "max-tokens-producer",
            "fairness-id-producer");
  }

  @Test
  void aListedPointReplacesTheDefaultsAndTheRequiredOnesComeBackInTheirPlace() {
    SchedulingConfig onlyFlowControl = PolicyShorthand.SEED.config(50)
        .withPlugin(PluginSpec.of("flow-control"))
        .withPlugin(PluginSpec.of("request-metrics"))
        .withPlugin(PluginSpec.of("rollout-redirect"));
    Map<String, List<String>> got = lifecycle(onlyFlowControl);
    assertThat(got.get("admission")).as("no shedding: the operator left it out; the budget is required")
        .containsExactly("tenant-budget", "flow-control");
    assertThat(got.get("response")).as("required hooks put back, the optional latency observation left out")
        .containsExactly("in-flight-lease", "flow-signal", "request-metrics", "tenant-settlement");
    assertThat(got.get("pre_request")).as("nothing listed for it: the defaults")
        .containsExactly("in-flight-lease", "adapter-usage", "capacity-arrivals");
    assertThat(got.get("resolve")).as("in their default order around the listed one")
        .containsExactly("weighted-targets", "model-less-variants", "rollout-redirect");
  }

  @Test
  void badLifecycleConfigurationsAreRefusedNamingWhatIsWrong() {
    SchedulingConfig seed = PolicyShorthand.SEED.config(50);
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("flow-control", Map.of("ttl", 5)))))
        .hasMessageContaining("--policy seed").hasMessageContaining("plugin flow-control: unknown parameter");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(new PluginSpec("second", "just-in-time-loader", Map.of()))
        .withPlugin(PluginSpec.of("just-in-time-loader")))).hasMessageContaining("2 loaders");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("prompt-blocks-producer"))))
        .hasMessageContaining("prompt-blocks-producer").hasMessageContaining("has none");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("session-id-producer",
        Map.of("sessionHeader", "X Session"))))).hasMessageContaining("lower-case letters");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("prompt-tokens-producer",
        Map.of("tokenizer", "gpt-4")))))
        .hasMessageContaining("plugin prompt-tokens-producer").hasMessageContaining("hf:DIR");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("prompt-tokens-producer",
        Map.of("tokenizer", "hf:no-such-dir/tokenizer.json"))))).hasMessageContaining("has no tokenizer.json")
        .hasMessageContaining("no-such-dir");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("prompt-tokens-producer",
        Map.of("maxPromptBytes", 10))))).hasMessageContaining("maxPromptBytes");
    assertThatThrownBy(() -> lifecycle(seed.withPlugin(PluginSpec.of("no-such-hook"))))
        .hasMessageContaining("'no-such-hook' is not known");
  }

  @Test
  void theStartUpLogNamesEveryExtensionPointsPluginsInOrder() {
    try (TestGateway g = new TestGateway(1, "")) {
      assertThat(g.director().describe())
          .startsWith("resolve: weighted-targets → model-less-variants → rollout-redirect; "
              + "prepare: objective-check-producer → fairness-id-producer; admission: "
              + "tenant-budget → saturation-shedding")
          .contains("; load: just-in-time-loader; schedule: subset-hint-filter")
          .endsWith("response: in-flight-lease → flow-signal → latency-observation → request-metrics → "
              + "tenant-settlement → cache-prediction");
    }
  }

  @Test
  void everyTypeIsInTheOneRegistryOnce() {
    assertThat(EppPlugins.builtIn().types()).contains("queue-scorer", "max-score-picker", "flow-control",
        "just-in-time-loader", "request-metrics", "objective-check-producer", "session-id-producer");
    assertThatThrownBy(() -> EppPlugins.builtIn().register("queue-scorer", false, (p, env) -> null))
        .hasMessageContaining("registered twice");
  }
}
