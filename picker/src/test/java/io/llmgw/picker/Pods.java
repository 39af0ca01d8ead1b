package io.llmgw.picker;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Builds endpoint states for picker tests. */
public final class Pods {
  public static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  public static EndpointState pod(int n, PodMetrics m, InFlight inFlight) {
    return new EndpointState(new Endpoint("pool", "pod-" + n, "127.0.0." + n, 8000), m, true, inFlight);
  }

  public static PodMetrics metrics(int queue, double kv, Set<String> loaded) {
    return new PodMetrics(queue, 0, kv, 4, Set.of(), Set.of(), loaded, Set.of("base"), NOW);
  }

  /** Adapters resident, and those the batch is running (what competes for its slots). */
  public static PodMetrics active(Set<String> loaded, Set<String> running) {
    return new PodMetrics(0, 0, 0, 4, running, Set.of(), loaded, Set.of("base"), NOW);
  }

  /** Mutable in-flight counts a test sets directly, all sent after the pod's report. */
  public static final class Pending implements InFlight {
    final Map<String, Integer> byModel = new HashMap<>();

    public Pending set(String model, int n) {
      byModel.put(model, n);
      return this;
    }

    @Override
    public int forModel(String model) {
      return byModel.getOrDefault(model, 0);
    }

    @Override
    public int total() {
      return byModel.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public int sentSince(Instant reportedAt) {
      return total();
    }
  }
}
