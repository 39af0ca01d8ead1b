package io.llmgw.bench.capacity;

import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.observe.GatewayStatus;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/** What asks the cluster for pods, once a second, from the EPP's status report. */
interface Scaler {
  /** Pods wanted per pool name (pools not named keep what they have). */
  Map<String, Integer> desired(GatewayStatus.Report report, long nowNanos);

  /** The capacity plan, as an HPA following {@code llmgw_pool_desired_replicas} gets it. */
  record Planner() implements Scaler {
    @Override
    public Map<String, Integer> desired(GatewayStatus.Report report, long nowNanos) {
      Map<String, Integer> out = new HashMap<>();
      for (PoolPlan p : report.capacity().pools()) {
        out.put(p.pool().name(), p.desired());
      }
      return out;
    }
  }

  /**
   * One pod per pool scaled by the saturation gauge (the EPP's signal before the planner, and what an HPA on llm-d's
   * queue and KV signals amounts to): demand in pods at saturation 1 plus the EPP's queue, at 80 % use, one more while an
   * objective is missed; scale-up at once, scale-down to the highest count wanted over the stabilisation window, as an
   * HPA's {@code scaleDown.stabilizationWindowSeconds} does.
   */
  final class SaturationGauge implements Scaler {
    private final long windowNanos;
    private final int queueLimit;
    private final Map<String, Deque<long[]>> history = new HashMap<>();

    SaturationGauge(double windowSeconds, int queueLimit) {
      this.windowNanos = (long) (windowSeconds * 1e9);
      this.queueLimit = queueLimit;
    }

    @Override
    public Map<String, Integer> desired(GatewayStatus.Report report, long nowNanos) {
      Map<String, Integer> out = new HashMap<>();
      for (PoolScaling p : report.pools()) {
        int raw = PoolScaling.of(p.pool(), p.pods(), p.saturation(), p.waiting(), queueLimit, p.objectivesMissed(),
            0.8).desired();
        Deque<long[]> h = history.computeIfAbsent(p.pool().name(), k -> new ArrayDeque<>());
        h.addLast(new long[] {nowNanos, raw});
        while (nowNanos - h.peekFirst()[0] > windowNanos) {
          h.removeFirst();
        }
        long max = 0;
        for (long[] e : h) {
          max = Math.max(max, e[1]);
        }
        out.put(p.pool().name(), (int) max);
      }
      return out;
    }
  }

  /** Provisioned for the peak: the same pods all day. */
  record Fixed(Map<String, Integer> pods) implements Scaler {
    @Override
    public Map<String, Integer> desired(GatewayStatus.Report report, long nowNanos) {
      return pods;
    }
  }
}
