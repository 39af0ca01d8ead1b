package io.llmgw.extproc.objectives.core;

import java.util.Arrays;

/**
 * One objective's recent observations: at most the last {@code capacity}, and of those only the ones within
 * {@code horizonMillis} of the moment asked about, so that a route judged after an overload is judged on what it does
 * now, and an idle route has no recent verdict at all instead of its last bad one. Thread-safe.
 */
public final class AttainmentWindow {
  /**
   * The window as of one moment.
   *
   * @param samples observations within the horizon
   * @param attainment their share within the limit; NaN without any
   * @param quantileMs their latency at the quantile asked, nearest rank; NaN without any
   * @param sinceMillis when the oldest of them was recorded; 0 without any
   */
  public record Recent(int samples, double attainment, double quantileMs, long sinceMillis) {}

  private final double limitMs;
  private final long horizonMillis;
  private final double[] values;
  private final long[] times;
  private int next;
  private int count;
  private long met;
  private long total;

  public AttainmentWindow(double limitMs, int capacity, long horizonMillis) {
    this.limitMs = limitMs;
    this.horizonMillis = horizonMillis;
    this.values = new double[capacity];
    this.times = new long[capacity];
  }

  public synchronized void record(double ms, long nowMillis) {
    values[next] = ms;
    times[next] = nowMillis;
    next = (next + 1) % values.length;
    count = Math.min(count + 1, values.length);
    total++;
    if (ms <= limitMs) {
      met++;
    }
  }

  /** The observations within the horizon before {@code nowMillis}, judged at quantile {@code q} (0–1]. */
  public synchronized Recent recent(long nowMillis, double q) {
    long cutoff = nowMillis - horizonMillis;
    double[] kept = new double[count];
    int n = 0;
    int within = 0;
    long since = 0;
    // newest first: the ring is in recording order, so the first one too old ends the walk
    for (int k = 1; k <= count; k++) {
      int i = Math.floorMod(next - k, values.length);
      if (times[i] < cutoff) {
        break;
      }
      kept[n++] = values[i];
      since = times[i];
      if (values[i] <= limitMs) {
        within++;
      }
    }
    if (n == 0) {
      return new Recent(0, Double.NaN, Double.NaN, 0);
    }
    Arrays.sort(kept, 0, n);
    int rank = (int) Math.ceil(q * n);
    return new Recent(n, (double) within / n, kept[Math.max(0, Math.min(n - 1, rank - 1))], since);
  }

  /** Observations within the limit since the window was made, however old. */
  public synchronized long met() {
    return met;
  }

  /** Observations since the window was made, however old. */
  public synchronized long total() {
    return total;
  }

  public double limitMs() {
    return limitMs;
  }
}
