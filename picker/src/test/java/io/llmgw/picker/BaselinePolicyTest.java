package io.llmgw.picker;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.config.PolicyShorthand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The baselines the load benchmark compares our policies with. */
class BaselinePolicyTest {
  @Test
  void roundRobinTakesEachEndpointInTurnWhateverTheCandidateOrder() {
    SchedulingProfile rr = Profiles.of(PolicyShorthand.ROUND_ROBIN, 50, new Random(1));
    List<EndpointState> pool = Profiles.pool(InFlight.NONE, InFlight.NONE, InFlight.NONE);
    List<String> primaries = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      List<EndpointState> shuffled = new ArrayList<>(pool);
      java.util.Collections.shuffle(shuffled, new Random(i));
      List<EndpointState> ranked = Profiles.picked(rr, PickRequest.of("m"), shuffled).ranked();
      assertThat(ranked).hasSize(3).doesNotHaveDuplicates();
      primaries.add(ranked.getFirst().endpoint().ip());
    }
    assertThat(primaries).containsExactly("127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.11", "127.0.0.12",
        "127.0.0.13");
  }

  @Test
  void leastRequestPrefersTheEndpointWithFewestInFlight() {
    SchedulingProfile lr = Profiles.of(PolicyShorthand.LEAST_REQUEST, 50, new Random(1));
    List<EndpointState> pool = Profiles.pool(new Pods.Pending().set("a", 3), new Pods.Pending().set("b", 1),
        new Pods.Pending().set("a", 1).set("b", 1));
    assertThat(Profiles.picked(lr, PickRequest.of("m"), pool).ranked()).extracting(e -> e.endpoint().ip())
        .containsExactly("127.0.0.12", "127.0.0.13", "127.0.0.11");
  }

  @Test
  void randomSpreadsOverAllEndpoints() {
    SchedulingProfile random = Profiles.of(PolicyShorthand.RANDOM, 50, new Random(7));
    List<EndpointState> pool = Profiles.pool(new Pods.Pending().set("a", 9), InFlight.NONE, InFlight.NONE,
        InFlight.NONE);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      counts.merge(Profiles.primary(random, PickRequest.of("m"), pool).endpoint().ip(), 1, Integer::sum);
    }
    assertThat(counts).hasSize(4);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
  }
}
