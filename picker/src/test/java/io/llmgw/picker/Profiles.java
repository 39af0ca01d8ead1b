package io.llmgw.picker;

import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Scheduling profiles as the EPP assembles them, for picker tests: fixed clock, seeded randomness. */
final class Profiles {
  private Profiles() {}

  static PluginEnv env(Clock clock, Random random, PluginTimings timings) {
    return new PluginEnv(clock, Ticker.system(), () -> random, Duration.ofSeconds(2), 3, timings);
  }

  static SchedulingProfile of(PolicyShorthand policy, int threshold, Random random) {
    return build(policy.config(threshold), Clock.fixed(Pods.NOW, ZoneOffset.UTC), random);
  }

  static SchedulingProfile build(SchedulingConfig config, Clock clock, Random random) {
    return PluginRegistry.builtIn().build(config, env(clock, random, PluginTimings.NONE), w -> {
      throw new AssertionError(w);
    });
  }

  static Decision picked(SchedulingProfile profile, PickRequest request, List<EndpointState> pool) {
    PickOutcome o = profile.schedule(request, pool);
    if (!(o instanceof PickOutcome.Picked p)) {
      throw new AssertionError("expected a pick, got " + o);
    }
    return p.decision();
  }

  static EndpointState primary(SchedulingProfile profile, PickRequest request, List<EndpointState> pool) {
    return picked(profile, request, pool).primary();
  }

  static List<EndpointState> pool(InFlight... inFlight) {
    List<EndpointState> out = new ArrayList<>();
    for (int i = 0; i < inFlight.length; i++) {
      out.add(Pods.pod(11 + i, Pods.metrics(0, 0, java.util.Set.of()), inFlight[i]));
    }
    return out;
  }
}
