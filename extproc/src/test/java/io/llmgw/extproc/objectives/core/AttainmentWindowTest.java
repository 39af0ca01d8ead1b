package io.llmgw.extproc.objectives.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class AttainmentWindowTest {
  static final long MINUTE = 60_000;

  @Test
  void shareWithinTheLimitAndTheQuantileOverTheLastObservationsOnly() {
    AttainmentWindow w = new AttainmentWindow(1_000, 10, 5 * MINUTE);
    assertThat(w.recent(0, 0.99).attainment()).isNaN();
    for (int i = 1; i <= 10; i++) {
      w.record(i * 200, i); // 200 … 2000: five within 1 s
    }
    assertThat(w.recent(10, 0.99)).isEqualTo(new AttainmentWindow.Recent(10, 0.5, 2_000, 1));
    assertThat(w.recent(10, 0.5).quantileMs()).isEqualTo(1_000);
    for (int i = 0; i < 10; i++) {
      w.record(100, 20 + i); // the window slides: the old misses are gone
    }
    assertThat(w.recent(30, 0.99).attainment()).isEqualTo(1.0);
    assertThat(w.met()).isEqualTo(5 + 10);
    assertThat(w.total()).isEqualTo(20);
  }

  /** Issue 32, item 6: an overload's misses stop counting once they are older than the horizon, idle or not. */
  @Test
  void observationsOlderThanTheHorizonStopCountingSoAnIdleRouteHasNoVerdict() {
    AttainmentWindow w = new AttainmentWindow(1_000, 1_000, 5 * MINUTE);
    for (int i = 0; i < 100; i++) {
      w.record(20_000, i * 100); // an overload: every request misses
    }
    assertThat(w.recent(MINUTE, 0.99).attainment()).isZero();
    for (int i = 0; i < 30; i++) {
      w.record(200, 3 * MINUTE + i * 1_000); // recovered
    }
    AttainmentWindow.Recent mixed = w.recent(5 * MINUTE, 0.99);
    assertThat(mixed.samples()).isEqualTo(130);
    assertThat(mixed.attainment()).isCloseTo(30 / 130.0, Offset.offset(1e-9));
    AttainmentWindow.Recent later = w.recent(7 * MINUTE, 0.99);
    assertThat(later.samples()).as("the overload's are older than 5 minutes").isEqualTo(30);
    assertThat(later.attainment()).isEqualTo(1.0);
    assertThat(later.sinceMillis()).isEqualTo(3 * MINUTE);
    AttainmentWindow.Recent idle = w.recent(9 * MINUTE, 0.99);
    assertThat(idle.samples()).isZero();
    assertThat(idle.attainment()).isNaN();
    assertThat(idle.quantileMs()).isNaN();
  }
}
