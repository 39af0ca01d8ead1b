package io.llmgw.extproc.capacity.controller;

import io.llmgw.api.PoolKey;
import io.llmgw.extproc.capacity.core.BatchLimit;
import io.llmgw.extproc.capacity.core.PodThroughput;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyPrediction;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one pod of each pool serves within its routes' objectives: the mean over (a sample of) its ready pods with a
 * latency model of their own ({@link PodThroughput}), up to the engine's batch limit ({@link BatchLimit}: declared,
 * bounded by the KV cache, at least the largest batch its pods have run with a queue, which the pool remembers when they
 * are gone), smoothed over the arrival window as arrivals are — one pass's estimate
 * moves with the models' latest observations, and a pool near a boundary would flap on it — and kept while no pod can
 * say (a pool at zero remembers what its pods served). The planning thread's own.
 */
final class PoolThroughputs {
  /** Pods of a pool whose latency models are asked, at most: pools are homogeneous. */
  static final int SAMPLED_PODS = 8;

  private final LatencyEstimator estimator;
  private final BatchLimits batchLimits;
  private final double headroom;
  private final double windowSeconds;
  private final Map<PoolKey, Integer> limits = new HashMap<>();
  private final Map<PoolKey, Double> smoothed = new HashMap<>();

  /** @param headroom the share of a latency limit a pod may be predicted to use (the latency model's) */
  PoolThroughputs(LatencyEstimator estimator, BatchLimits batchLimits, double headroom, double windowSeconds) {
    this.estimator = estimator;
    this.batchLimits = batchLimits;
    this.headroom = headroom;
    this.windowSeconds = windowSeconds;
  }

  /**
   * Requests per second per pod, NaN while unknown.
   *
   * @param declaredBatch the pool's {@code llmgw.io/max-batch}, 0 when undeclared
   */
  double of(PoolKey pool, List<EndpointState> states, PoolLimits routeLimits, double promptTokens, int declaredBatch,
      double dt) {
    List<String> addresses = new ArrayList<>(states.size());
    states.forEach(s -> addresses.add(s.address()));
    int learned = Math.max(limits.getOrDefault(pool, 0), batchLimits.of(addresses));
    if (learned > 0) {
      limits.put(pool, learned);
    }
    int limit = BatchLimit.of(declaredBatch, batchLimits.kvCacheTokens(addresses),
        promptTokens + routeLimits.outputTokens(), learned);
    double estimate = sample(states, routeLimits, limit, promptTokens);
    Double before = smoothed.get(pool);
    if (Double.isNaN(estimate)) {
      return before == null ? Double.NaN : before;
    }
    double alpha = before == null || dt <= 0 ? 1 : 1 - Math.exp(-dt / windowSeconds);
    double next = before == null ? estimate : before + alpha * (estimate - before);
    smoothed.put(pool, next);
    return next;
  }

  private double sample(List<EndpointState> states, PoolLimits routeLimits, int batchLimit, double promptTokens) {
    double sum = 0;
    int n = 0;
    for (EndpointState s : states) {
      if (!s.scrapeHealthy() || n >= SAMPLED_PODS) {
        continue;
      }
      double perPod = PodThroughput.of(model(s.address(), (long) promptTokens), routeLimits.ttftMs() * headroom,
          routeLimits.tpotMs() * headroom, batchLimit, routeLimits.outputTokens());
      if (!Double.isNaN(perPod)) {
        sum += perPod;
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  private PodThroughput.Latency model(String address, long promptTokens) {
    return new PodThroughput.Latency() {
      @Override
      public double ttftMs(int running) {
        return predict(running).ttftMs();
      }

      @Override
      public double tpotMs(int running) {
        return predict(running).tpotMs();
      }

      private LatencyPrediction predict(int running) {
        return estimator.predictOwn(address, new LoadSnapshot(0, running, 0), promptTokens);
      }
    };
  }

  void retain(Set<PoolKey> live) {
    limits.keySet().retainAll(live);
    smoothed.keySet().retainAll(live);
  }
}
