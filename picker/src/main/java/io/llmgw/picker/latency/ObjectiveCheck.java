package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;
import java.util.ArrayList;
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
  /** Picking among the endpoints that miss the limits keeps those within this factor of the fastest. */
  static final double BEST_EFFORT_SPREAD = 1.2;

  private final ObjectiveLimits limits;
  private final long promptTokens;
  private final LatencyEstimator estimator;
  private final double headroom;
  private final boolean spent;
  private final Map<String, LatencyPrediction> predictions = new HashMap<>(8);

  private ObjectiveCheck(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator, double headroom,
      boolean spent) {
    this.limits = limits;
    this.promptTokens = promptTokens;
    this.estimator = estimator;
    this.headroom = headroom;
    this.spent = spent;
  }

  /** Null when the request has no limits: nothing to check. */
  public static ObjectiveCheck of(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator,
      double headroom) {
    return limits.any() ? new ObjectiveCheck(limits, promptTokens, estimator, headroom, false) : null;
  }

  /**
   * For picking a request whose time-to-first-token limit is already spent (it waited that long): no endpoint can meet
   * it any more, so none {@link #meets} it, and picking prefers the endpoints predicted {@link #fastest} to answer.
   */
  public static ObjectiveCheck spent(ObjectiveLimits original, long promptTokens, LatencyEstimator estimator) {
    return new ObjectiveCheck(original, promptTokens, estimator, 1.0, true);
  }

  public boolean meets(EndpointState e) {
    return !spent && predict(e).meets(limits.ttftMs() * headroom, limits.tpotMs() * headroom);
  }

  /**
   * Best effort when no candidate meets the limits: those predicted within {@value #BEST_EFFORT_SPREAD}× of the fastest
   * (by time to first token when the request has that limit, else by time per output token), and any the model knows
   * nothing of yet. Without it, a request the pool cannot serve in time went to any pod, the slowest included.
   */
  public List<EndpointState> fastest(List<EndpointState> candidates) {
    boolean byTtft = limits.ttftMs() > 0;
    double best = Double.POSITIVE_INFINITY;
    for (EndpointState e : candidates) {
      double v = latency(e, byTtft);
      if (!Double.isNaN(v)) {
        best = Math.min(best, v);
      }
    }
    if (best == Double.POSITIVE_INFINITY) {
      return candidates;
    }
    List<EndpointState> out = new ArrayList<>(candidates.size());
    for (EndpointState e : candidates) {
      double v = latency(e, byTtft);
      if (Double.isNaN(v) || v <= best * BEST_EFFORT_SPREAD) {
        out.add(e);
      }
    }
    return out;
  }

  private double latency(EndpointState e, boolean byTtft) {
    LatencyPrediction p = predict(e);
    return byTtft ? p.ttftMs() : p.tpotMs();
  }

  private LatencyPrediction predict(EndpointState e) {
    LatencyPrediction p = predictions.get(e.address());
    if (p == null) {
      p = estimator.predict(e.address(), LoadSnapshot.of(e), promptTokens);
      predictions.put(e.address(), p);
    }
    return p;
  }

  /** Whether any endpoint meets the limits now (admission's question; a spent limit is never asked: see Director). */
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
