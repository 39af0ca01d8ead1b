package io.llmgw.picker.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LatencyEstimatorTest {
  /** A pod whose TTFT grows 200 ms per waiting request and TPOT 1 ms per running one, with noise. */
  private static void train(LatencyEstimator e, String pod, double ttftPerWaiting, int n, long seed) {
    Random r = new Random(seed);
    for (int i = 0; i < n; i++) {
      int waiting = r.nextInt(10);
      int running = r.nextInt(16);
      double ttft = 50 + ttftPerWaiting * waiting + r.nextGaussian() * 5;
      double tpot = 20 + 1.0 * running + r.nextGaussian() * 0.5;
      e.observe(pod, new LoadSnapshot(waiting, running, 0.3), 500, ttft, tpot);
    }
  }

  @Test
  void learnsHowLatencyGrowsWithLoadPerPod() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    train(e, "fast", 20, 400, 1);
    train(e, "slow", 200, 400, 2);
    LatencyPrediction idleSlow = e.predict("slow", new LoadSnapshot(0, 4, 0.3), 500);
    LatencyPrediction busySlow = e.predict("slow", new LoadSnapshot(8, 16, 0.3), 500);
    LatencyPrediction busyFast = e.predict("fast", new LoadSnapshot(8, 16, 0.3), 500);
    assertEquals(50, idleSlow.ttftMs(), 15);
    assertEquals(1650, busySlow.ttftMs(), 60);
    assertEquals(210, busyFast.ttftMs(), 30);
    assertEquals(36, busySlow.tpotMs(), 2);
    assertTrue(busySlow.meets(2_000, 50));
    assertFalse(busySlow.meets(1_000, 0), "a TTFT limit of 1 s excludes the busy slow pod");
    assertFalse(busySlow.meets(0, 30), "a TPOT limit of 30 ms excludes it too");
  }

  @Test
  void aPodWithoutEnoughDataBorrowsThePooledFitAndNoDataAtAllIsUnknown() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    LatencyPrediction none = e.predict("new", new LoadSnapshot(3, 3, 0), 100);
    assertTrue(Double.isNaN(none.ttftMs()) && Double.isNaN(none.tpotMs()));
    assertTrue(none.meets(1, 1), "no data is not held against a pod");
    train(e, "old", 100, 200, 3);
    e.observe("new", new LoadSnapshot(0, 0, 0), 100, 10_000, Double.NaN); // one outlier: not trusted on its own
    assertEquals(550, e.predict("new", new LoadSnapshot(5, 8, 0.3), 500).ttftMs(), 120);
  }

  /** Issue 52: the capacity plan reads a pod's own fit only; the pooled one mixes pools. */
  @Test
  void aPodsOwnFitIsUnknownUntilItHasEnoughOfItsOwn() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    train(e, "old", 100, 200, 3);
    assertTrue(Double.isNaN(e.predictOwn("new", new LoadSnapshot(0, 3, 0), 100).ttftMs()));
    assertEquals(e.predict("old", new LoadSnapshot(0, 3, 0), 100).ttftMs(),
        e.predictOwn("old", new LoadSnapshot(0, 3, 0), 100).ttftMs(), 1e-9);
    e.observe("new", new LoadSnapshot(0, 3, 0), 100, 500, 20);
    assertTrue(Double.isNaN(e.predictOwn("new", new LoadSnapshot(0, 3, 0), 100).ttftMs()), "one observation");
    assertFalse(Double.isNaN(e.predict("new", new LoadSnapshot(0, 3, 0), 100).ttftMs()), "the pooled fit serves");
  }

  @Test
  void forgetsPodsThatLeft() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    train(e, "a", 100, 50, 4);
    train(e, "b", 100, 50, 5);
    e.retainOnly(Set.of("b"));
    // "a" now predicts from the pooled fit, which still has a's data: the same shape, not NaN
    assertFalse(Double.isNaN(e.predict("a", new LoadSnapshot(1, 1, 0), 500).ttftMs()));
  }

  @Test
  void followsAPodWhoseBehaviourChanges() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    train(e, "p", 20, 500, 6);
    train(e, "p", 300, 1_500, 7); // the pod got slower (a bigger model, a noisy neighbour)
    assertEquals(50 + 300 * 5, e.predict("p", new LoadSnapshot(5, 8, 0.3), 500).ttftMs(), 100);
  }

  @Test
  void expectsAModelsRecentOutputCappedByWhatTheRequestAllows() {
    LatencyEstimator e = new LatencyEstimator(LatencyModelSettings.defaults());
    assertEquals(128, e.expectedOutput("m", 0, 128), 1e-9, "nothing seen, no limit: the fallback");
    assertEquals(64, e.expectedOutput("m", 64, 128), 1e-9, "nothing seen: the request's limit");
    for (int i = 0; i < 200; i++) {
      e.observeOutput("m", 300);
    }
    e.observeOutput("m", 0); // an empty response teaches nothing
    e.observeOutput("m", -5);
    e.observeOutput("m", Long.MAX_VALUE); // a pod's usage claiming absurd output is not believed
    e.observeOutput("m", LatencyEstimator.MAX_OUTPUT_TOKENS + 1);
    assertEquals(300, e.expectedOutput("m", 0, 128), 1e-6);
    assertEquals(100, e.expectedOutput("m", 100, 128), 1e-9, "a limit is a cap");
    assertEquals(128, e.expectedOutput("other", 0, 128), 1e-9);
  }
}
