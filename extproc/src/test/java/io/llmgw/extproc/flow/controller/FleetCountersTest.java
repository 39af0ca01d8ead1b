package io.llmgw.extproc.flow.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.PoolKey;
import io.llmgw.extproc.flow.core.ServedTokens;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 5: a set of pools is known to the fleet by its pools' names, so what a peer charged lands in the
 * counters this replica orders that set's band by, even before this replica has routed to it; and a peer cannot make
 * it keep counters without end.
 */
class FleetCountersTest {
  final PoolSet one = new PoolSet(List.of(new PoolKey("default", "sim-pool")));
  final PoolSet two = new PoolSet(List.of(new PoolKey("default", "a"), new PoolKey("team", "b")));

  @Test
  void chargesGoOutUnderTheSetsNameAndAPeersComeInUnderIt() {
    FleetCounters counters = new FleetCounters();
    counters.share();
    counters.of(one).add(0, "heavy", 2_016);
    counters.of(two).add(1, "light", 216);
    assertThat(counters.drain()).containsExactlyInAnyOrder(new ServedTokens("default/sim-pool", 0, "heavy", 2_016),
        new ServedTokens("default/a,team/b", 1, "light", 216));

    counters.heard(List.of(new ServedTokens("default/sim-pool", 0, "light", 500),
        new ServedTokens("default/a,team/b", 1, "light", 100)));
    assertThat(counters.of(one).of(0, "light")).isEqualTo(500);
    assertThat(counters.of(two).of(1, "light")).isEqualTo(316);
    assertThat(counters.drain()).as("what peers said is not passed on").isEmpty();
  }

  @Test
  void aSetThisReplicaHasNotRoutedToYetKeepsWhatThePeersSaid() {
    FleetCounters counters = new FleetCounters();
    counters.heard(List.of(new ServedTokens("team/later", 0, "heavy", 9_000)));
    assertThat(counters.of(new PoolSet(List.of(new PoolKey("team", "later")))).of(0, "heavy")).isEqualTo(9_000);
  }

  @Test
  void aPeerNamingEndlessSetsIsHeardOnlyForSoMany() {
    FleetCounters counters = new FleetCounters();
    List<ServedTokens> invented = new ArrayList<>();
    for (int i = 0; i < FleetCounters.MAX_HEARD_POOL_SETS + 100; i++) {
      invented.add(new ServedTokens("ns/pool-" + i, 0, "f", 1));
    }
    counters.heard(invented);
    assertThat(counters.of(new PoolSet(List.of(new PoolKey("ns", "pool-" + (FleetCounters.MAX_HEARD_POOL_SETS + 50)))))
        .of(0, "f")).as("past the bound").isZero();
    assertThat(counters.of(new PoolSet(List.of(new PoolKey("ns", "pool-3")))).of(0, "f")).isEqualTo(1);
    counters.of(one).add(0, "f", 5); // a set this replica routes to still has counters of its own
    assertThat(counters.of(one).of(0, "f")).isEqualTo(5);
  }
}
