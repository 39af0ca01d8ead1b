package io.llmgw.extproc.pluginfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.llmgw.api.ConfigException;
import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.PodMetrics;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The reference EPP's plugin configuration, read as an operator's file would be. */
class PluginConfigFileTest {
  static final Instant NOW = Instant.parse("2026-11-23T00:00:00Z");
  static final Path EXAMPLE = Path.of("..", "examples", "plugins-scorers.yaml");

  private static SchedulingProfile build(SchedulingConfig config, long seed) {
    Random random = new Random(seed);
    return PluginRegistry.builtIn().build(config, new PluginEnv(Clock.fixed(NOW, ZoneOffset.UTC), Ticker.system(),
        () -> random, Duration.ofSeconds(2), 3, PluginTimings.NONE), w -> {});
  }

  /** Pods with varied queues, KV use, batches and in-flight counts; one of 8 prompts, so prefixes repeat. */
  private static List<EndpointState> pool(Random r) {
    List<EndpointState> out = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Set<String> running = r.nextBoolean() ? Set.of("a" + r.nextInt(4)) : Set.of();
      PodMetrics m = new PodMetrics(r.nextInt(6), r.nextInt(8), r.nextDouble(), 2, running, Set.of(),
          Set.of("a0", "a1"), Set.of("base"), NOW);
      int pending = r.nextInt(5);
      out.add(new EndpointState(new Endpoint("pool", "p" + i, "127.0.0." + (i + 1), 8000), m, true, new InFlight() {
        @Override
        public int forModel(String model) {
          return pending;
        }

        @Override
        public int total() {
          return pending;
        }

        @Override
        public int sentSince(java.time.Instant reportedAt) {
          return pending;
        }
      }));
    }
    return out;
  }

  @Test
  void theShippedScorerSetPicksExactlyAsPolicyScorersDoes() throws ConfigException {
    List<String> warnings = new ArrayList<>();
    SchedulingProfile fromFile = build(PluginConfigFile.load(EXAMPLE, warnings::add), 11);
    SchedulingProfile shorthand = build(PolicyShorthand.SCORERS.config(50), 11);
    assertThat(warnings).isEmpty();
    assertThat(fromFile.plugins()).isEqualTo(shorthand.plugins());
    PrefixHasher hasher = fromFile.prefixHasher();
    Random states = new Random(3);
    for (int i = 0; i < 500; i++) {
      List<EndpointState> pool = pool(states);
      String model = "a" + states.nextInt(4);
      byte[] prompt = ("system prompt " + states.nextInt(8) + " ").repeat(30).getBytes(StandardCharsets.UTF_8);
      PickRequest request = PickRequest.of(model).withPrefixBlocks(hasher.blocks(model, prompt, prompt.length));
      PickOutcome a = fromFile.schedule(request, pool);
      PickOutcome b = shorthand.schedule(request, pool);
      assertThat(a).as("decision %d", i).isInstanceOf(PickOutcome.Picked.class);
      assertThat(((PickOutcome.Picked) a).decision()).as("decision %d", i)
          .isEqualTo(((PickOutcome.Picked) b).decision());
      assertThat(((PickOutcome.Picked) a).loadAtPick()).isEqualTo(((PickOutcome.Picked) b).loadAtPick());
    }
  }

  @Test
  void fieldsItDoesNotKnowAreRefusedNamingTheFieldAndSectionsItDoesNotReadAreNamed() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    assertThatThrownBy(() -> PluginConfigFile.parse("f.yaml", yaml.readTree("""
        kind: EndpointPickerConfig
        plugins: [{type: queue-scorer, paramters: {}}]
        schedulingProfiles: [{name: p, plugins: [{pluginRef: queue-scorer}]}]
        """), w -> {})).isInstanceOf(ConfigException.class)
        .hasMessage("f.yaml, field plugins[0].paramters: unknown field (expected one of [name, parameters, type])");
    assertThatThrownBy(() -> PluginConfigFile.parse("f.yaml", yaml.readTree("kind: InferencePool\n"), w -> {}))
        .hasMessageContaining("must be EndpointPickerConfig");
    assertThatThrownBy(() -> PluginConfigFile.parse("f.yaml", yaml.readTree("""
        kind: EndpointPickerConfig
        plugins: [{type: queue-scorer}]
        schedulingProfiles: [{name: p, plugins: [{pluginRef: queue-scorer, weight: heavy}]}]
        """), w -> {})).hasMessageContaining("schedulingProfiles[0].plugins[0].weight: must be a number");
    // issue 48: llm-d's sections are read; what this file cannot set is refused with the flags that set it
    assertThatThrownBy(() -> PluginConfigFile.parse("f.yaml", yaml.readTree("""
        kind: EndpointPickerConfig
        featureGates: [flowControl]
        saturationDetector: {pluginRef: utilization-detector}
        plugins: [{type: queue-scorer}]
        schedulingProfiles: [{name: p, plugins: [{pluginRef: queue-scorer}]}]
        """), w -> {})).hasMessageContaining("field saturationDetector").hasMessageContaining("--saturation-");
    List<String> warnings = new ArrayList<>();
    PluginConfigFile.parse("f.yaml", yaml.readTree("""
        kind: EndpointPickerConfig
        featureGates: [flowControl]
        plugins: [{type: queue-scorer}]
        schedulingProfiles: [{name: p, plugins: [{pluginRef: queue-scorer}]}]
        """), warnings::add);
    assertThat(warnings).as("flow control is on here always").isEmpty();
  }

  @Test
  void aFileThatIsNotYamlOrIsMissingIsAClearError() {
    assertThatThrownBy(() -> PluginConfigFile.load(Path.of("no-such-file.yaml"), w -> {}))
        .isInstanceOf(ConfigException.class).hasMessageContaining("cannot be read");
  }
}
