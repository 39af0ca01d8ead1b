package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Live in-flight counters of one endpoint, per model and in total. Per-model updates are atomic per key. */
public final class EndpointLoad implements InFlight {
  private final AtomicInteger total = new AtomicInteger();
  private final Map<String, Integer> byModel = new ConcurrentHashMap<>();

  @Override
  public int forModel(String model) {
    return byModel.getOrDefault(model, 0);
  }

  @Override
  public int total() {
    return total.get();
  }

  void increment(String model) {
    byModel.merge(model, 1, Integer::sum);
    total.incrementAndGet();
  }

  void decrement(String model) {
    byModel.computeIfPresent(model, (m, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
  }

  /** Snapshot for the EPP's own metrics. */
  public Map<String, Integer> perModel() {
    return new TreeMap<>(byModel);
  }
}
