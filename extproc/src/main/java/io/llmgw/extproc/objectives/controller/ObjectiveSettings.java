package io.llmgw.extproc.objectives.controller;

import io.llmgw.picker.latency.LatencyModelSettings;
import java.time.Duration;

/**
 * How latency objectives are learnt, judged and turned into a scaling signal.
 *
 * @param model the per-pod latency model (and the headroom a pod must leave under a limit)
 * @param attainmentWindow the last requests each objective's attainment is computed over, at most
 * @param attainmentHorizon of those, only the ones observed this recently count: after an overload the verdict
 *     recovers within this time, and an idle route has none
 * @param minRequestsForScaling attainment over fewer recent requests than this says too little to ask for another pod
 * @param targetUtilisation the share of a pool's capacity its demand may use before it asks for more pods
 */
public record ObjectiveSettings(LatencyModelSettings model, int attainmentWindow, Duration attainmentHorizon,
    long minRequestsForScaling, double targetUtilisation) {
  public static final Duration DEFAULT_HORIZON = Duration.ofMinutes(5);

  public ObjectiveSettings {
    if (attainmentWindow < 1 || minRequestsForScaling < 0 || !(targetUtilisation > 0 && targetUtilisation <= 1)
        || attainmentHorizon.isNegative() || attainmentHorizon.isZero()) {
      throw new IllegalArgumentException("objectives: a window of at least 1, a positive horizon, a non-negative "
          + "minimum and a target utilisation in (0, 1] are required");
    }
  }

  public static ObjectiveSettings defaults() {
    return new ObjectiveSettings(LatencyModelSettings.defaults(), 1_000, DEFAULT_HORIZON, 20, 0.8);
  }
}
