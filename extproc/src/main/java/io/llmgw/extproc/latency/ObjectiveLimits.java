package io.llmgw.extproc.latency;

import io.llmgw.api.Objective;
import io.llmgw.api.RouteAdapter;
import io.llmgw.extproc.routing.RequestHints;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The latency limits one request must be routed within, in milliseconds (0: none): time to first token from the
 * route's TimeToFirstToken objective or the request's {@code x-slo-ttft-ms}, time per output token from its
 * OutputTokenLatency objective.
 */
public record ObjectiveLimits(double ttftMs, double tpotMs) {
  /**
   * The model predicts a mean while objectives hold at a quantile (p99 by default): a pod qualifies only with this
   * share of the limit predicted, leaving the rest for variance.
   */
  static final double HEADROOM = 0.8;

  public static ObjectiveLimits of(RouteAdapter adapter, RequestHints hints) {
    Objective ttft = adapter.objective(Objective.TTFT);
    Objective tpot = adapter.objective(Objective.TPOT);
    double ttftMs = hints.sloTtftMs() > 0 ? hints.sloTtftMs() : ttft == null ? 0 : ttft.latency().toMillis();
    return new ObjectiveLimits(ttftMs, tpot == null ? 0 : tpot.latency().toMillis());
  }

  public boolean any() {
    return ttftMs > 0 || tpotMs > 0;
  }

  /**
   * What is left after the request waited {@code waitedMs}: a time-to-first-token limit already spent is dropped (it
   * can no longer be met; holding the request longer would only make it later).
   */
  public ObjectiveLimits after(long waitedMs) {
    if (ttftMs <= 0) {
      return this;
    }
    double left = ttftMs - waitedMs;
    return new ObjectiveLimits(left > 0 ? left : 0, tpotMs);
  }

  /** Endpoints predicted to meet these limits; all of them when there are no limits. */
  public Set<String> meeting(List<EndpointState> states, LatencyEstimator estimator, long promptTokens) {
    Set<String> out = new HashSet<>();
    for (EndpointState s : states) {
      if (!any() || estimator.predict(s.address(), LoadSnapshot.of(s), promptTokens)
          .meets(ttftMs * HEADROOM, tpotMs * HEADROOM)) {
        out.add(s.address());
      }
    }
    return out;
  }
}
