package io.llmgw.extproc.capacity.controller;

import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.capacity.core.Spill;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What arrives, counted on the request path (an adder per key, nothing else) and turned into rates by the planning
 * thread: requests picked onto each pool and their prompt tokens, each model-less route's requests, and those that went
 * to a dearer variant only because the cheaper one had no room. Rates are exponentially smoothed over {@code window}:
 * the planner follows a ramp within it and ignores a single burst shorter than it. Keys come from the configuration,
 * and at most {@link #MAX_KEYS} of each kind are counted.
 */
public final class ArrivalMeter {
  static final int MAX_KEYS = 4096;

  private record SpillKey(RouteKey route, PoolKey from, PoolKey to) {}

  private final Map<PoolKey, LongAdder> picks = new ConcurrentHashMap<>();
  private final Map<PoolKey, LongAdder> promptTokens = new ConcurrentHashMap<>();
  private final Map<RouteKey, LongAdder> modelLess = new ConcurrentHashMap<>();
  private final Map<SpillKey, LongAdder> spills = new ConcurrentHashMap<>();
  private final double windowSeconds;
  // the planning thread's own
  private final Map<Object, Double> smoothed = new HashMap<>();
  private long lastNanos = Long.MIN_VALUE;

  public ArrivalMeter(double windowSeconds) {
    if (!(windowSeconds > 0)) {
      throw new IllegalArgumentException("the arrival window must be positive");
    }
    this.windowSeconds = windowSeconds;
  }

  /** One request was sent to a pod of {@code pool}. */
  public void picked(PoolKey pool, long prompt) {
    adder(picks, pool).increment();
    adder(promptTokens, pool).add(Math.max(0, prompt));
  }

  /** One request of a model-less route had its variant chosen, on {@code from}'s pool. */
  public void modelLess(RouteKey route, PoolKey from, PoolKey wanted) {
    adder(modelLess, route).increment();
    if (wanted != null && !wanted.equals(from)) {
      adder(spills, new SpillKey(route, from, wanted)).increment();
    }
  }

  /** Smoothed rates as of {@code nowNanos}; the first call only starts the clock. */
  public Rates rates(long nowNanos) {
    double dt = lastNanos == Long.MIN_VALUE ? 0 : (nowNanos - lastNanos) / 1e9;
    lastNanos = nowNanos;
    double alpha = dt <= 0 ? 0 : 1 - Math.exp(-dt / windowSeconds);
    Map<PoolKey, Double> arrival = new HashMap<>();
    Map<PoolKey, Double> prompts = new HashMap<>();
    picks.forEach((pool, n) -> {
      double count = n.sumThenReset();
      LongAdder t = promptTokens.get(pool);
      double tokens = t == null ? 0 : t.sumThenReset();
      arrival.put(pool, smooth(pool, alpha, dt, count));
      double meanPrompt = smoothed.getOrDefault(new Prompt(pool), Double.NaN);
      if (count > 0) {
        meanPrompt = Double.isNaN(meanPrompt) ? tokens / count : meanPrompt + alpha * (tokens / count - meanPrompt);
        smoothed.put(new Prompt(pool), meanPrompt);
      }
      prompts.put(pool, meanPrompt);
    });
    Map<RouteKey, Double> routes = new HashMap<>();
    modelLess.forEach((route, n) -> routes.put(route, smooth(route, alpha, dt, n.sumThenReset())));
    List<Spill> out = new ArrayList<>();
    spills.forEach((k, n) -> {
      double rate = smooth(k, alpha, dt, n.sumThenReset());
      double total = routes.getOrDefault(k.route(), 0.0);
      if (rate > 1e-3 && total > 0) {
        out.add(new Spill(k.route(), k.from(), k.to(), rate, Math.min(1, rate / total)));
      }
    });
    return new Rates(arrival, prompts, out);
  }

  /** The smoothed requests per second, and each pool's recent mean prompt tokens (NaN before its first request). */
  public record Rates(Map<PoolKey, Double> arrival, Map<PoolKey, Double> meanPromptTokens, List<Spill> spills) {}

  private record Prompt(PoolKey pool) {}

  private double smooth(Object key, double alpha, double dt, double count) {
    double prior = smoothed.getOrDefault(key, 0.0);
    double next = dt <= 0 ? prior : prior + alpha * (count / dt - prior);
    smoothed.put(key, next);
    return next;
  }

  /** Forgets keys the configuration no longer has. */
  public void retain(Set<PoolKey> pools, Set<RouteKey> routes) {
    picks.keySet().retainAll(pools);
    promptTokens.keySet().retainAll(pools);
    modelLess.keySet().retainAll(routes);
    spills.keySet().removeIf(k -> !routes.contains(k.route()) || !pools.contains(k.from()) || !pools.contains(k.to()));
    smoothed.keySet().removeIf(k -> k instanceof PoolKey p && !pools.contains(p)
        || k instanceof RouteKey r && !routes.contains(r) || k instanceof Prompt p && !pools.contains(p.pool())
        || k instanceof SpillKey s && !spills.containsKey(s));
  }

  private static <K> LongAdder adder(Map<K, LongAdder> map, K key) {
    LongAdder a = map.get(key);
    if (a != null) {
      return a;
    }
    return map.size() >= MAX_KEYS ? new LongAdder() : map.computeIfAbsent(key, k -> new LongAdder());
  }
}
