package io.llmgw.extproc.capacity.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.llmgw.api.PoolKey;
import org.junit.jupiter.api.Test;

/** Issue 52: one of several replicas sees its share of a pool's arrivals; the plan counts the fleet's. */
class FleetShareTest {
  static final PoolKey POOL = new PoolKey("default", "pool");

  @Test
  void aQuarterOfThePoolsRequestsInFlightIsAQuarterOfItsArrivals() {
    FleetShare f = new FleetShare(10);
    double factor = 0;
    for (int i = 0; i < 100; i++) {
      factor = f.factor(POOL, i % 2 == 0 ? 2 : 3, i % 2 == 0 ? 8 : 12, 1);
    }
    assertThat(factor).isCloseTo(4, within(0.05));
  }

  @Test
  void aloneOrWithNothingOfItsOwnInFlightTheFactorIsOne() {
    FleetShare f = new FleetShare(10);
    assertThat(f.factor(POOL, 3, 3, 1)).isEqualTo(1);
    FleetShare idle = new FleetShare(10);
    assertThat(idle.factor(POOL, 0, 6, 1)).isEqualTo(1);
  }
}
