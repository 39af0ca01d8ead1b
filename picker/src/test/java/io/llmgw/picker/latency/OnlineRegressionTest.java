package io.llmgw.picker.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OnlineRegressionTest {
  @Test
  void aFeatureThatNeverVariedTakesNoShareOfTheConstant() {
    // a pod only ever seen with one running request: its latency is its own, not half of it owed to that request
    OnlineRegression fit = new OnlineRegression(3, 0.995, 1e-3);
    for (int i = 0; i < 25; i++) {
      fit.observe(new double[] {1, 1, 0.01}, 400);
    }
    assertEquals(400, fit.predict(new double[] {1, 0, 0.01}), 4);
    assertEquals(400, fit.predict(new double[] {1, 1, 0.01}), 1);
  }

  @Test
  void recoversALinearRelationOnceTheFeatureVaries() {
    OnlineRegression fit = new OnlineRegression(2, 1.0, 1e-3);
    for (int i = 0; i < 40; i++) {
      fit.observe(new double[] {1, i % 5}, 50 + 20 * (i % 5));
    }
    assertEquals(50, fit.predict(new double[] {1, 0}), 0.5);
    assertEquals(250, fit.predict(new double[] {1, 10}), 1);
    assertEquals(40, fit.weight(), 1e-9);
  }
}
