package io.llmgw.bench.capacity;

import java.util.function.DoubleUnaryOperator;

/**
 * A day of load compressed into {@code seconds}: a trough at night (a fifth of the peak), a rise to the peak at midday
 * and back along a squared cosine (a long quiet night and a working-day hump, as diurnal inference traces look: the
 * mean is half the peak), and three bursts of half as much again, each 1/36 of the day, on the morning ramp, at the
 * peak and in the evening.
 */
record DayCurve(double seconds) {
  static final double TROUGH = 0.2;
  static final double BURST = 1.5;
  static final double BURST_SECONDS_SHARE = 1.0 / 36;
  static final double[] BURSTS_AT = {0.3, 0.5, 0.75};

  /** The load at {@code t} seconds as a share of the peak (bursts exceed 1). */
  double shape(double t) {
    double hump = 0.5 - 0.5 * Math.cos(2 * Math.PI * t / seconds);
    double day = TROUGH + (1 - TROUGH) * hump * hump;
    for (double at : BURSTS_AT) {
      double start = at * seconds;
      if (t >= start && t < start + BURST_SECONDS_SHARE * seconds) {
        return day * BURST;
      }
    }
    return day;
  }

  /** The mean of {@link #shape} over the day. */
  double mean() {
    int steps = 10_000;
    double sum = 0;
    for (int i = 0; i < steps; i++) {
      sum += shape((i + 0.5) * seconds / steps);
    }
    return sum / steps;
  }

  /**
   * Maps the run's own time (arrivals at the mean rate) to the clock: the inverse of the cumulative shape, scaled so the
   * day ends when the run does (for {@link io.llmgw.loadgen.OpenLoopRun#shaped}).
   */
  DoubleUnaryOperator toRealSeconds() {
    int steps = 20_000;
    double[] cumulative = new double[steps + 1];
    double mean = mean();
    for (int i = 0; i < steps; i++) {
      cumulative[i + 1] = cumulative[i] + shape((i + 0.5) * seconds / steps) / mean * seconds / steps;
    }
    return u -> {
      if (u <= 0) {
        return 0;
      }
      int lo = 0;
      int hi = steps;
      while (hi - lo > 1) {
        int mid = (lo + hi) >>> 1;
        if (cumulative[mid] < u) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      double span = cumulative[hi] - cumulative[lo];
      double within = span <= 0 ? 0 : (u - cumulative[lo]) / span;
      return (lo + Math.min(1, within)) * seconds / steps;
    };
  }
}
