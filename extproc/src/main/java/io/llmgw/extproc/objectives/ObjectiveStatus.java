package io.llmgw.extproc.objectives;

import io.llmgw.api.RouteKey;

/**
 * One route objective's attainment over the last requests.
 *
 * @param type {@code TimeToFirstToken} or {@code OutputTokenLatency}
 * @param attainment share of the window within {@code limitMs}; NaN before the first request
 * @param observedMs the window's latency at the objective's quantile
 */
public record ObjectiveStatus(RouteKey route, String type, double limitMs, double quantile, double attainment,
    double observedMs, long met, long total) {
  /** Attained when the share within the limit reaches the quantile (99 % for p99); unknown counts as attained. */
  public boolean attained() {
    return Double.isNaN(attainment) || attainment >= quantile;
  }
}
