package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One decision's view of a request's latency limits: whether each endpoint is predicted to meet them, asked at most
 * once per endpoint (admission and the latency filter share the answers). The model predicts a mean while objectives
 * hold at a quantile, so an endpoint qualifies only with {@code headroom} of the limit predicted. Each endpoint's load
 * is read as this request would meet it ({@code loads}: its adapter's place in the batch, its prompt's cached share),
 * so a cached prompt is not judged as slow as a cold one, nor an adapter waiting for a slot as fast as one in the
 * batch. Not thread-safe; made anew for every decision ({@link #renewed}), since predictions follow the endpoints' load.
 */
public final class ObjectiveCheck {
  /** Picking among the endpoints that miss the limits keeps those within this factor of the fastest. */
  static final double BEST_EFFORT_SPREAD = 1.2;

  private final ObjectiveLimits limits;
  private final long promptTokens;
  private final LatencyEstimator estimator;
  private final double headroom;
  private final Function<EndpointState, LoadSnapshot> loads;
  private final boolean spent;
  private final Map<String, LatencyPrediction> predictions = new HashMap<>(8);

  private ObjectiveCheck(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator, double headroom,
      Function<EndpointState, LoadSnapshot> loads, boolean spent) {
    this.limits = limits;
    this.promptTokens = promptTokens;
    this.estimator = estimator;
    this.headroom = headroom;
    this.loads = loads;
    this.spent = spent;
  }

  /**
   * Null when the request has no limits: nothing to check.
   *
   * @param loads each endpoint's load as this request would meet it (e.g. {@code SchedulingProfile.loadFor})
   */
  public static ObjectiveCheck of(ObjectiveLimits limits, long promptTokens, LatencyEstimator estimator,
      double headroom, Function<EndpointState, LoadSnapshot> loads) {
    return limits.any() ? new ObjectiveCheck(limits, promptTokens, estimator, headroom, loads, false) : null;
  }

  /** The same request's check against other limits (what is left of them after a wait), with fresh predictions. */
  public ObjectiveCheck renewed(ObjectiveLimits left) {
    return of(left, promptTokens, estimator, headroom, loads);
  }

  /**
   * For picking a request whose time-to-first-token limit is already spent (it waited that long): no endpoint can meet
   * it any more, so none {@link #meets} it, and picking prefers the endpoints predicted {@link #fastest} to answer.
   */
  public static ObjectiveCheck spent(ObjectiveLimits original, long promptTokens, LatencyEstimator estimator,
      Function<EndpointState, LoadSnapshot> loads) {
    return new ObjectiveCheck(original, promptTokens, estimator, 1.0, loads, true);
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
      p = estimator.predict(e.address(), loads.apply(e), promptTokens);
      predictions.put(e.address(), p);
    }
    return p;
  }

  /** Whether any endpoint meets the limits now (admission's question; never asked of a {@linkplain #spent() spent} check). */
  public boolean anyMeets(List<EndpointState> states) {
    for (EndpointState e : states) {
      if (meets(e)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the limits were waited out: picking prefers the fastest, and admission holds nothing back for them. */
  public boolean spent() {
    return spent;
  }

  public ObjectiveLimits limits() {
    return limits;
  }
}
