package io.llmgw.extproc.capacity.options;

import io.llmgw.api.cli.Converters;
import io.llmgw.extproc.capacity.controller.CapacitySettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The serve command's capacity-plan flags. */
public final class CapacityOptions {
  @Option(names = "--capacity-arrival-window", converter = Converters.PositiveDuration.class,
      description = "Arrival rates are smoothed over this time: the plan follows a ramp within it and leaves a shorter "
          + "burst to flow control (default: ${DEFAULT-VALUE}).")
  Duration arrivalWindow;

  @Option(names = "--capacity-hysteresis", converter = Converters.AnyDuration.class,
      description = "A lower pod count must hold this long beyond the pool's load time before the plan lets pods go "
          + "(default: ${DEFAULT-VALUE}).")
  Duration hysteresis;

  @Option(names = "--capacity-load-time", converter = Converters.PositiveDuration.class,
      description = "A pool's load time when it declares none (llmgw.io/pod-load-time) and its pods have not shown one "
          + "(creation to Ready) (default: ${DEFAULT-VALUE}).")
  Duration loadTime;

  @Option(names = "--apply-capacity-plan",
      description = "In cluster mode, set each pool's llmgw.io/scale-target (Deployment/NAME or StatefulSet/NAME) to "
          + "the plan's pod count through its scale subresource, from the replica that writes route status (needs "
          + "deploy/options/apply-capacity-plan's RBAC). Off: an HPA or KEDA follows llmgw_pool_desired_replicas.")
  boolean applyPlan;

  /** @throws IllegalArgumentException naming what is wrong */
  public CapacitySettings capacity(CapacitySettings defaults) {
    return new CapacitySettings(defaults.interval(), arrivalWindow, hysteresis, loadTime, applyPlan);
  }
}
