package io.llmgw.extproc.capacity.controller;

import io.llmgw.api.Objective;
import io.llmgw.api.PoolKey;
import io.llmgw.api.Variant;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.picker.latency.LatencyEstimator;
import java.time.Duration;
import java.util.List;

/**
 * What the routes on one pool ask of its pods: the tightest time to first token and time per output token among
 * their objectives (a model-less route's latency requirement counts as a TTFT limit on its variants' pools), and the
 * output a request there produces on average.
 *
 * @param ttftMs NaN when nothing bounds it
 * @param tpotMs NaN when nothing bounds it
 */
record PoolLimits(double ttftMs, double tpotMs, double outputTokens) {
  /** Output tokens assumed for a model no response has taught. */
  static final int DEFAULT_OUTPUT = 128;

  static PoolLimits of(PoolKey pool, List<RouteView> routes, LatencyEstimator estimator) {
    double ttft = Double.NaN;
    double tpot = Double.NaN;
    double outputs = 0;
    int models = 0;
    for (RouteView v : routes) {
      if (!onPool(v, pool)) {
        continue;
      }
      var adapter = v.route().adapter();
      for (Objective o : adapter.objectives()) {
        double ms = o.latency().toMillis();
        if (o.type().equals(Objective.TTFT)) {
          ttft = Double.isNaN(ttft) ? ms : Math.min(ttft, ms);
        } else if (o.type().equals(Objective.TPOT)) {
          tpot = Double.isNaN(tpot) ? ms : Math.min(tpot, ms);
        }
      }
      if (adapter.modelLess()) {
        Duration limit = adapter.requirements().maxLatency();
        for (Variant variant : adapter.variants()) {
          if (variant.pool().equals(pool.name())) {
            if (limit != null) {
              ttft = Double.isNaN(ttft) ? limit.toMillis() : Math.min(ttft, limit.toMillis());
            }
            outputs += estimator.expectedOutput(variant.name(), 0, DEFAULT_OUTPUT);
            models++;
          }
        }
      } else {
        outputs += estimator.expectedOutput(v.route().modelName(), 0, DEFAULT_OUTPUT);
        models++;
      }
    }
    return new PoolLimits(ttft, tpot, models == 0 ? DEFAULT_OUTPUT : outputs / models);
  }

  private static boolean onPool(RouteView v, PoolKey pool) {
    for (PoolView p : v.pools()) {
      if (p.key().equals(pool)) {
        return true;
      }
    }
    return false;
  }

  /** "TTFT 1000 ms, TPOT 50 ms", or "no objective". */
  String text() {
    String t = Double.isNaN(ttftMs) ? "" : "TTFT " + Math.round(ttftMs) + " ms";
    String p = Double.isNaN(tpotMs) ? "" : "TPOT " + Math.round(tpotMs) + " ms";
    return t.isEmpty() && p.isEmpty() ? "no objective" : t.isEmpty() ? p : p.isEmpty() ? t : t + ", " + p;
  }
}
