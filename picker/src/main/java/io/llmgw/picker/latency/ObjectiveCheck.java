package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One decision's view of a request's latency limits: whether each endpoint is predicted to meet them, asked at most
 * once per endpoint (admission and the latency filter share the answers). The model predicts a mean while objectives
 * hold at a quantile, so an endpoint qualifies only with {@code headroom} of the limit predicted. Not thread-safe;
 * made anew for every decision, since predictions follow the endpoints' load.
 */
public final class ObjectiveCheck {
  private final ObjectiveLimits limits;
  private final long promptTokens;
  private final LatencyEstimator estimator;
  private final double headroom;
  private final Map<String, Boolean> answers = new HashMap<>(8);

  private ObjectiveCheck(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator, double headroom) {
    this.limits = limits;
    this.promptTokens = promptTokens;
    this.estimator = estimator;
    this.headroom = headroom;
  }

  /** Null when the request has no limits: nothing to check. */
  public static ObjectiveCheck of(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator,
      double headroom) {
    return limits.any() ? new ObjectiveCheck(limits, promptTokens, estimator, headroom) : null;
  }

  public boolean meets(EndpointState e) {
    Boolean known = answers.get(e.address());
    if (known == null) {
      known = estimator.predict(e.address(), LoadSnapshot.of(e), promptTokens)
          .meets(limits.ttftMs() * headroom, limits.tpotMs() * headroom);
      answers.put(e.address(), known);
    }
    return known;
  }

  public boolean anyMeets(List<EndpointState> states) {
    for (EndpointState e : states) {
      if (meets(e)) {
        return true;
      }
    }
    return false;
  }

  public ObjectiveLimits limits() {
    return limits;
  }
}
