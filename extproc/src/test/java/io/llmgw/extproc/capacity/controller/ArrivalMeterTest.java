package io.llmgw.extproc.capacity.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 52: arrivals become smoothed rates; spills carry their share of the route. */
class ArrivalMeterTest {
  static final long SECOND = 1_000_000_000L;
  static final PoolKey SMALL = new PoolKey("default", "small");
  static final PoolKey LARGE = new PoolKey("default", "large");
  static final RouteKey ROUTE = new RouteKey("default", "summaries");

  @Test
  void aSteadyRateIsReachedWithinAFewWindowsAndPromptsAreAveraged() {
    ArrivalMeter m = new ArrivalMeter(5);
    m.rates(0);
    ArrivalMeter.Rates r = null;
    for (int s = 1; s <= 30; s++) {
      for (int i = 0; i < 10; i++) {
        m.picked(SMALL, 200);
      }
      r = m.rates(s * SECOND);
    }
    assertThat(r.arrival().get(SMALL)).isCloseTo(10, within(0.05));
    assertThat(r.meanPromptTokens().get(SMALL)).isEqualTo(200);
  }

  @Test
  void spillsAreReportedWithTheirShareOfTheRoute() {
    ArrivalMeter m = new ArrivalMeter(1);
    m.rates(0);
    for (int i = 0; i < 6; i++) {
      m.modelLess(ROUTE, SMALL, null);
    }
    for (int i = 0; i < 4; i++) {
      m.modelLess(ROUTE, LARGE, SMALL);
    }
    m.modelLess(ROUTE, SMALL, SMALL); // went where it wanted: no spill
    ArrivalMeter.Rates r = m.rates(SECOND);
    assertThat(r.spills()).singleElement().satisfies(s -> {
      assertThat(s.from()).isEqualTo(LARGE);
      assertThat(s.to()).isEqualTo(SMALL);
      assertThat(s.share()).isCloseTo(4.0 / 11, within(1e-9));
    });
  }

  @Test
  void keysOfGoneConfigurationAreForgottenAndTheirNumberIsBounded() {
    ArrivalMeter m = new ArrivalMeter(1);
    m.rates(0);
    for (int i = 0; i < ArrivalMeter.MAX_KEYS + 100; i++) {
      m.picked(new PoolKey("default", "p" + i), 1);
    }
    assertThat(m.rates(SECOND).arrival()).hasSize(ArrivalMeter.MAX_KEYS);
    m.retain(Set.of(SMALL), Set.of());
    assertThat(m.rates(2 * SECOND).arrival()).isEmpty();
  }
}
