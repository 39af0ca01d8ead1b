package io.llmgw.picker;

import static io.llmgw.picker.Pods.NOW;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one definition of "resident": the pod's report, corrected by what the gateway did there lately. */
class EndpointStateTest {
  /** The gateway loaded "new" and unloaded "gone" on the pod, neither of which its report shows yet. */
  final AdapterChanges changes = new AdapterChanges() {
    final Map<String, Boolean> lately = Map.of("new", true, "gone", false);

    @Override
    public Boolean lately(String address, String adapter) {
      return lately.get(adapter);
    }

    @Override
    public Set<String> loadedLately(String address) {
      return Set.of("new");
    }
  };
  final PodMetrics report = new PodMetrics(0, 1, 0, 4, Set.of("busy"), Set.of("queued"), Set.of("listed", "gone"),
      Set.of("base"), NOW);
  final EndpointState e = new EndpointState(pod(1, report, InFlight.NONE).endpoint(), report, true, InFlight.NONE,
      changes);

  @Test
  void listedRunningAndQueuedAdaptersAreHeldUnlessTheGatewayUnloadedThemLately() {
    assertThat(e.holdsAdapter("listed")).isTrue();
    assertThat(e.holdsAdapter("busy")).isTrue();
    assertThat(e.holdsAdapter("queued")).isTrue();
    assertThat(e.holdsAdapter("gone")).isFalse();
    assertThat(e.holdsAdapter("new")).as("loaded by the gateway, not reported yet").isTrue();
    assertThat(e.holdsAdapter("other")).isFalse();
  }

  @Test
  void theSetOfResidentAdaptersAgreesWithTheQuestionAskedOneByOne() {
    assertThat(e.residentAdapters()).containsExactly("busy", "listed", "new", "queued");
  }

  @Test
  void itServesItsBaseModelAndTheAdaptersItHolds() {
    assertThat(e.serves("base")).isTrue();
    assertThat(e.serves("new")).isTrue();
    assertThat(e.serves("gone")).isFalse();
  }

  @Test
  void holdersAreTheReachableEndpointsHoldingIt() {
    EndpointState unreachable = new EndpointState(pod(2, report, InFlight.NONE).endpoint(), report, false,
        InFlight.NONE);
    assertThat(Residency.holders("listed", List.of(e, unreachable))).containsExactly("127.0.0.1:8000");
  }
}
