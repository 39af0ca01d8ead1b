package io.llmgw.picker.latency;

import java.util.Arrays;

/**
 * The last {@code capacity} observations of one objective: the share within the objective's latency, and the latency
 * at the objective's quantile. Thread-safe.
 */
public final class AttainmentWindow {
  private final double limitMs;
  private final double[] values;
  private int next;
  private int count;
  private long met;
  private long total;

  public AttainmentWindow(double limitMs, int capacity) {
    this.limitMs = limitMs;
    this.values = new double[capacity];
  }

  public synchronized void record(double ms) {
    values[next] = ms;
    next = (next + 1) % values.length;
    count = Math.min(count + 1, values.length);
    total++;
    if (ms <= limitMs) {
      met++;
    }
  }

  /** Share of the window within the limit; NaN before the first observation. */
  public synchronized double attainment() {
    if (count == 0) {
      return Double.NaN;
    }
    int within = 0;
    for (int i = 0; i < count; i++) {
      if (values[i] <= limitMs) {
        within++;
      }
    }
    return (double) within / count;
  }

  /** The window's latency at quantile {@code q} (0–1], nearest rank; NaN when empty. */
  public synchronized double quantileMs(double q) {
    if (count == 0) {
      return Double.NaN;
    }
    double[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }

  public synchronized long met() {
    return met;
  }

  public synchronized long total() {
    return total;
  }

  public double limitMs() {
    return limitMs;
  }
}
