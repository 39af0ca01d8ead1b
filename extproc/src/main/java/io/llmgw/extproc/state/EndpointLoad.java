package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Live in-flight counters of one endpoint, per model and in total. */
public final class EndpointLoad implements InFlight {
  private final AtomicInteger total = new AtomicInteger();
  private final Map<String, AtomicInteger> byModel = new ConcurrentHashMap<>();

  @Override
  public int forModel(String model) {
    AtomicInteger c = byModel.get(model);
    return c == null ? 0 : c.get();
  }

  @Override
  public int total() {
    return total.get();
  }

  void increment(String model) {
    byModel.computeIfAbsent(model, m -> new AtomicInteger()).incrementAndGet();
    total.incrementAndGet();
  }

  void decrement(String model) {
    byModel.computeIfPresent(model, (m, c) -> c.decrementAndGet() <= 0 ? null : c);
    total.decrementAndGet();
  }

  /** Snapshot for the EPP's own metrics. */
  public Map<String, Integer> perModel() {
    Map<String, Integer> out = new java.util.TreeMap<>();
    byModel.forEach((m, c) -> out.put(m, c.get()));
    return out;
  }
}
