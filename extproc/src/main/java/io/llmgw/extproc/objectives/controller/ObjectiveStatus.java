package io.llmgw.extproc.objectives.controller;

import io.llmgw.api.RouteKey;

/**
 * One route objective's attainment over its recent requests: the last ones, and only those of the last few minutes
 * ({@link ObjectiveSettings#attainmentHorizon}), so that the verdict is about now.
 *
 * @param type {@code TimeToFirstToken} or {@code OutputTokenLatency}
 * @param attainment share of the recent requests within {@code limitMs}; NaN without recent requests
 * @param observedMs the recent requests' latency at the objective's quantile; NaN without any
 * @param samples how many recent requests the attainment is over
 * @param sinceEpochMillis when the oldest of them was observed; 0 without any
 * @param met requests within the limit since the EPP started (or the objective changed), however old
 * @param total requests since then
 */
public record ObjectiveStatus(RouteKey route, String type, double limitMs, double quantile, double attainment,
    double observedMs, int samples, long sinceEpochMillis, long met, long total) {
  /** Attained when the share within the limit reaches the quantile (99 % for p99); unknown counts as attained. */
  public boolean attained() {
    return Double.isNaN(attainment) || attainment >= quantile;
  }

  /** Missed, and over enough recent requests to say so (an idle or nearly idle route is never "missed"). */
  public boolean missed(long minSamples) {
    return !attained() && samples >= minSamples;
  }
}
