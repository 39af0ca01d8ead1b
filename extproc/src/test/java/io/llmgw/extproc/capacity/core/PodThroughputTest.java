package io.llmgw.extproc.capacity.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Issue 52: a pod's requests per second within its objectives, from a latency model. */
class PodThroughputTest {
  /** TTFT 100 + 50 per running, TPOT 20 + 2 per running. */
  static final PodThroughput.Latency LINEAR = new PodThroughput.Latency() {
    @Override
    public double ttftMs(int running) {
      return 100 + 50.0 * running;
    }

    @Override
    public double tpotMs(int running) {
      return 20 + 2.0 * running;
    }
  };

  @Test
  void theBestBatchWithinTheLimitsByLittlesLaw() {
    // no limits: the batch limit 8 bounds it; duration at 8 = 500 + 99 × 36 = 4064 ms → 8 / 4.064
    assertThat(PodThroughput.of(LINEAR, Double.NaN, Double.NaN, 8, 100)).isCloseTo(8 / 4.064, within(1e-9));
    // TTFT ≤ 300 ms allows 4 running: 300 + 99 × 28 = 3072 ms
    assertThat(PodThroughput.of(LINEAR, 300, Double.NaN, 8, 100)).isCloseTo(4 / 3.072, within(1e-9));
    // TPOT ≤ 26 ms allows 3
    assertThat(PodThroughput.of(LINEAR, Double.NaN, 26, 8, 100)).isCloseTo(3 / (0.25 + 99 * 0.026), within(1e-9));
  }

  @Test
  void unknownWithoutAModelABatchLimitOrAnyBatchWithinTheLimits() {
    PodThroughput.Latency none = new PodThroughput.Latency() {
      @Override
      public double ttftMs(int running) {
        return Double.NaN;
      }

      @Override
      public double tpotMs(int running) {
        return Double.NaN;
      }
    };
    assertThat(PodThroughput.of(none, 1000, 50, 8, 100)).isNaN();
    assertThat(PodThroughput.of(LINEAR, 1000, 50, 0, 100)).isNaN();
    assertThat(PodThroughput.of(LINEAR, 100, 50, 8, 100)).isNaN(); // even one request alone misses TTFT
    assertThat(PodThroughput.of(LINEAR, 1000, 50, 8, Double.NaN)).isNaN();
  }
}
