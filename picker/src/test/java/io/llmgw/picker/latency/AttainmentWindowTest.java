package io.llmgw.picker.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AttainmentWindowTest {
  @Test
  void shareWithinTheLimitAndTheQuantileOverTheLastObservationsOnly() {
    AttainmentWindow w = new AttainmentWindow(1_000, 10);
    assertTrue(Double.isNaN(w.attainment()));
    for (int i = 1; i <= 10; i++) {
      w.record(i * 200); // 200 … 2000: five within 1 s
    }
    assertEquals(0.5, w.attainment(), 1e-9);
    assertEquals(2_000, w.quantileMs(0.99), 1e-9);
    assertEquals(1_000, w.quantileMs(0.5), 1e-9);
    for (int i = 0; i < 10; i++) {
      w.record(100); // the window slides: the old misses are gone
    }
    assertEquals(1.0, w.attainment(), 1e-9);
    assertEquals(5 + 10, w.met());
    assertEquals(20, w.total());
  }
}
