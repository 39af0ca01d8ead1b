package io.llmgw.picker;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The baselines the load benchmark compares our policies with. */
class BaselinePolicyTest {
  private static List<EndpointState> pool(InFlight... inFlight) {
    List<EndpointState> out = new ArrayList<>();
    for (int i = 0; i < inFlight.length; i++) {
      out.add(pod(11 + i, metrics(0, 0, Set.of()), inFlight[i]));
    }
    return out;
  }

  @Test
  void roundRobinTakesEachEndpointInTurnWhateverTheCandidateOrder() {
    Policy rr = Policies.roundRobin();
    List<EndpointState> pool = pool(InFlight.NONE, InFlight.NONE, InFlight.NONE);
    List<String> primaries = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      List<EndpointState> shuffled = new ArrayList<>(pool);
      java.util.Collections.shuffle(shuffled, new Random(i));
      List<EndpointState> ranked = rr.rank(PickRequest.of("m"), shuffled, 3);
      assertThat(ranked).hasSize(3).doesNotHaveDuplicates();
      primaries.add(ranked.getFirst().endpoint().ip());
    }
    assertThat(primaries).containsExactly("127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.11", "127.0.0.12",
        "127.0.0.13");
  }

  @Test
  void leastRequestPrefersTheEndpointWithFewestInFlight() {
    Policy lr = Policies.leastRequest(() -> new Random(1));
    List<EndpointState> pool = pool(new Pods.Pending().set("a", 3), new Pods.Pending().set("b", 1),
        new Pods.Pending().set("a", 1).set("b", 1));
    List<EndpointState> ranked = lr.rank(PickRequest.of("m"), pool, 3);
    assertThat(ranked).extracting(e -> e.endpoint().ip())
        .containsExactly("127.0.0.12", "127.0.0.13", "127.0.0.11");
  }

  @Test
  void randomSpreadsOverAllEndpoints() {
    Random seeded = new Random(7);
    Policy random = Policies.random(() -> seeded);
    List<EndpointState> pool = pool(new Pods.Pending().set("a", 9), InFlight.NONE, InFlight.NONE, InFlight.NONE);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      counts.merge(random.rank(PickRequest.of("m"), pool, 1).getFirst().endpoint().ip(), 1, Integer::sum);
    }
    assertThat(counts).hasSize(4);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
  }
}
