package io.llmgw.picker.disagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.PodMetrics;
import io.llmgw.picker.Pods;
import io.llmgw.picker.Role;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.ProfileSpec;
import io.llmgw.picker.config.SchedulingConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pd-profile-handler: a prompt goes to a prefill pod only when that is cheaper than computing it where it runs. */
class DisaggregationTest {
  static final PluginEnv ENV = new PluginEnv(Clock.fixed(Pods.NOW, ZoneOffset.UTC), Ticker.system(),
      () -> new Random(1), Duration.ofSeconds(2), 3, PluginTimings.NONE);

  static SchedulingConfig config(List<ProfileSpec> profiles, PluginSpec... extra) {
    List<PluginSpec> plugins = new ArrayList<>(List.of(spec("prefill-filter"), spec("decode-filter"),
        spec("queue-scorer"), spec("token-load-scorer"), spec("max-score-picker"), spec("prefix-cache-scorer"),
        new PluginSpec("pd-profile-handler", "pd-profile-handler", Map.of("threshold", 256))));
    plugins.addAll(List.of(extra));
    return new SchedulingConfig("test", plugins, profiles);
  }

  static PluginSpec spec(String type) {
    return new PluginSpec(type, type, Map.of());
  }

  static final List<ProfileSpec> PD = List.of(
      new ProfileSpec("prefill", List.of(ProfileSpec.Ref.to("prefill-filter"), ProfileSpec.Ref.to("token-load-scorer"),
          ProfileSpec.Ref.to("max-score-picker"))),
      new ProfileSpec("decode", List.of(ProfileSpec.Ref.to("decode-filter"), ProfileSpec.Ref.to("queue-scorer"),
          ProfileSpec.Ref.to("prefix-cache-scorer"), ProfileSpec.Ref.to("max-score-picker"))));

  static final PluginRegistry.Assembled ASSEMBLED = PluginRegistry.builtIn().assemble(config(PD), ENV, w -> {});

  /** A pod of a role, {@code running} sequences in its batch, {@code prefillTokens} of prompts sent it unanswered. */
  static EndpointState pod(int n, Role role, int running, long prefillTokens) {
    PodMetrics m = new PodMetrics(0, running, 0.1, 4, Set.of(), Set.of(), Set.of(), Set.of("base"), Pods.NOW);
    InFlight inFlight = new InFlight() {
      @Override
      public int forModel(String model) {
        return prefillTokens > 0 ? 1 : 0;
      }

      @Override
      public int total() {
        return forModel("base");
      }

      @Override
      public int sentSince(Instant reportedAt) {
        return 0;
      }

      @Override
      public long prefillTokens() {
        return prefillTokens;
      }

      @Override
      public int inPrefill() {
        return total();
      }
    };
    return new EndpointState(new Endpoint("pool", "pod-" + n, "127.0.0." + n, 8000, Role.ofLabel(role.name())), m,
        true, inFlight);
  }

  static PrefillChoice decide(long promptTokens, List<EndpointState> pool) {
    // a prompt of its own each time, which the decode profile's prefix scorer records where it routes it
    byte[] prompt = ("prompt " + promptTokens + " " + System.nanoTime()).repeat(40).getBytes();
    PickRequest request = PickRequest.of("base").withPromptTokens(promptTokens)
        .withPrefixBlocks(new io.llmgw.picker.PrefixHasher().blocks("base", prompt, prompt.length));
    PickOutcome outcome = ASSEMBLED.profile().schedule(request, pool);
    PickOutcome.Picked picked = (PickOutcome.Picked) outcome;
    EndpointState decode = picked.decision().primary();
    assertThat(decode.endpoint().role()).as("the decode profile never routes to a prefill-only pod")
        .isNotEqualTo(Role.PREFILL);
    return ASSEMBLED.disaggregation().choose(request, pool, decode, picked.loadAtPick().cachedShare(), false);
  }

  @Test
  void aLongPromptForABusyDecodePodIsComputedOnTheIdlePrefillPod() {
    List<EndpointState> pool = List.of(pod(1, Role.PREFILL, 0, 0), pod(2, Role.DECODE, 8, 0),
        pod(3, Role.DECODE, 8, 0));
    PrefillChoice c = decide(4_000, pool);
    assertThat(c.outcome()).isEqualTo(PrefillChoice.Outcome.SPLIT);
    assertThat(c.prefill().address()).isEqualTo("127.0.0.1:8000");
    assertThat(c.uncachedTokens()).isEqualTo(4_000);
  }

  @Test
  void aShortPromptIsServedWhole() {
    List<EndpointState> pool = List.of(pod(1, Role.PREFILL, 0, 0), pod(2, Role.DECODE, 8, 0));
    assertThat(decide(200, pool).outcome()).isEqualTo(PrefillChoice.Outcome.SHORT);
    assertThat(decide(200, pool).split()).isFalse();
  }

  /** llm-d's pitfall: a length threshold alone sends prompts to a prefill pool that is already backed up. */
  @Test
  void aBackedUpPrefillPodIsNotWorthTheTransfer() {
    List<EndpointState> pool = List.of(pod(1, Role.PREFILL, 0, 100_000), pod(2, Role.DECODE, 0, 0));
    assertThat(decide(4_000, pool).outcome()).isEqualTo(PrefillChoice.Outcome.PREFILL_BUSY);
    // the same prefill backlog, but a decode pod whose 60 running sequences would each wait out the prompt: split
    List<EndpointState> busy = List.of(pod(1, Role.PREFILL, 0, 100_000), pod(2, Role.DECODE, 60, 0));
    assertThat(decide(4_000, busy).outcome()).isEqualTo(PrefillChoice.Outcome.SPLIT);
    // llm-d's length-only rule splits into the backlog anyway
    PluginRegistry.Assembled byLength = PluginRegistry.builtIn().assemble(new SchedulingConfig("test",
        config(PD).plugins().stream().map(p -> p.type().equals("pd-profile-handler")
            ? new PluginSpec(p.name(), p.type(), Map.of("threshold", 256, "costAware", false)) : p).toList(),
        PD),
        ENV, w -> {});
    PickRequest request = PickRequest.of("base").withPromptTokens(4_000);
    assertThat(byLength.disaggregation().choose(request, pool, pool.get(1), 0, false).outcome())
        .isEqualTo(PrefillChoice.Outcome.SPLIT);
  }

  /** llm-d's prefix-based-pd-decider's promptTokens: a prompt under the floor is served whole, however uncached. */
  @Test
  void aPromptUnderTheFloorIsServedWholeAndOneAtItIsSplit() {
    List<EndpointState> pool = List.of(pod(1, Role.PREFILL, 0, 0), pod(2, Role.DECODE, 8, 0));
    PluginRegistry.Assembled floored = PluginRegistry.builtIn().assemble(new SchedulingConfig("test",
        config(PD).plugins().stream().map(p -> p.type().equals("pd-profile-handler") ? new PluginSpec(p.name(),
            p.type(), Map.of("threshold", 8, "costAware", false, "minPromptTokens", 1_000)) : p).toList(),
        PD),
        ENV, w -> {});
    assertThat(floored.disaggregation().choose(PickRequest.of("base").withPromptTokens(999), pool, pool.get(1), 0,
        false).outcome()).isEqualTo(PrefillChoice.Outcome.SHORT);
    assertThat(floored.disaggregation().choose(PickRequest.of("base").withPromptTokens(1_000), pool, pool.get(1), 0,
        false).outcome()).isEqualTo(PrefillChoice.Outcome.SPLIT);
  }

  @Test
  void aPoolWithoutPrefillPodsServesWhole() {
    List<EndpointState> pool = List.of(pod(2, Role.DECODE, 8, 0), pod(3, Role.BOTH, 8, 0));
    assertThat(decide(4_000, pool).outcome()).isEqualTo(PrefillChoice.Outcome.NO_PREFILL_POD);
  }

  @Test
  void theHandlerWantsAPrefillAndADecodeProfileAndOneWayToCutPrompts() {
    List<ProfileSpec> one = List.of(PD.get(1));
    assertThatThrownBy(() -> PluginRegistry.builtIn().assemble(config(one), ENV, w -> {}))
        .hasMessageContaining("exactly two scheduling profiles, 'prefill' and 'decode'");
    List<ProfileSpec> cut = List.of(
        new ProfileSpec("prefill", List.of(ProfileSpec.Ref.to("prefill-filter"), ProfileSpec.Ref.to("small"),
            ProfileSpec.Ref.to("max-score-picker"))),
        new ProfileSpec("decode", List.of(ProfileSpec.Ref.to("decode-filter"), ProfileSpec.Ref.to("large"),
            ProfileSpec.Ref.to("max-score-picker"))));
    assertThatThrownBy(() -> PluginRegistry.builtIn().assemble(config(cut,
        new PluginSpec("small", "prefix-cache-scorer", Map.of("blockSize", 16)),
        new PluginSpec("large", "prefix-cache-scorer", Map.of("blockSize", 64))), ENV, w -> {}))
        .hasMessageContaining("cut prompts differently");
    for (Map<String, Object> bad : List.of(Map.<String, Object>of("transferCost", -1),
        Map.<String, Object>of("stallWeight", "heavy"), Map.<String, Object>of("splitOverhead", -5),
        Map.<String, Object>of("threshhold", 10))) {
      SchedulingConfig c = new SchedulingConfig("test", config(PD).plugins().stream()
          .map(p -> p.type().equals("pd-profile-handler") ? new PluginSpec(p.name(), p.type(), bad) : p).toList(), PD);
      assertThatThrownBy(() -> PluginRegistry.builtIn().assemble(c, ENV, w -> {})).as(bad.toString())
          .hasMessageContaining("pd-profile-handler");
    }
    assertThat(Role.ofLabel("Prefill")).isEqualTo(Role.PREFILL);
    assertThat(Role.ofLabel("encode")).as("a value naming no role").isNull();
  }
}
