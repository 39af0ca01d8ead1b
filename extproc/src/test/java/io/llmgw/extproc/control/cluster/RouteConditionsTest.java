package io.llmgw.extproc.control.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteConditionsTest {
  static final Instant T1 = Instant.parse("2026-11-22T10:00:00Z");
  static final Instant T2 = Instant.parse("2026-11-22T10:05:00Z");

  static RouteVerdict accepted(List<String> unresolved) {
    return new RouteVerdict("ns", "r", 3, null, null, List.of("pool"), unresolved, List.of("sql-v1", "sql-v2"));
  }

  /** Endpoints whose model lists are known and serve every model. */
  static RouteConditions.Endpoints served(int total, int healthy) {
    return new RouteConditions.Endpoints(total, healthy, true, List.of());
  }

  static Condition find(List<Condition> cs, String type) {
    return cs.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
  }

  @Test
  void aRejectedRouteSaysWhyAndIsNeitherResolvedNorReady() {
    var v = new RouteVerdict("ns", "r", 7, "Invalid", "spec.adapter.name: is required", List.of(), List.of(),
        List.of());
    List<Condition> cs = RouteConditions.desired(v, served(4, 4));
    assertThat(find(cs, "Accepted").getStatus()).isEqualTo("False");
    assertThat(find(cs, "Accepted").getMessage()).isEqualTo("spec.adapter.name: is required");
    assertThat(find(cs, "ResolvedRefs").getStatus()).isEqualTo("Unknown");
    assertThat(find(cs, "Ready").getStatus()).isEqualTo("False");
    assertThat(cs).allMatch(c -> c.getObservedGeneration() == 7);
  }

  @Test
  void readinessFollowsHealthyEndpointsAndAMissingPoolIsNamed() {
    assertThat(find(RouteConditions.desired(accepted(List.of()), served(3, 1)), "Ready")
        .getReason()).isEqualTo("EndpointsReady");
    assertThat(find(RouteConditions.desired(accepted(List.of()), served(3, 0)), "Ready")
        .getReason()).isEqualTo("NoReadyEndpoints");
    Condition refs = find(RouteConditions.desired(accepted(List.of("pool")), served(0, 0)),
        "ResolvedRefs");
    assertThat(refs.getReason()).isEqualTo("PoolNotFound");
    assertThat(refs.getMessage()).contains("pool", "ns");
  }

  @Test
  void aRouteIsNotReadyWhileNoReadyPodServesOneOfItsTargets() {
    Condition unknown = find(RouteConditions.desired(accepted(List.of()),
        new RouteConditions.Endpoints(2, 2, false, List.of("sql-v1", "sql-v2"))), "Ready");
    assertThat(unknown.getStatus() + "/" + unknown.getReason()).isEqualTo("Unknown/ModelsUnknown");
    Condition missing = find(RouteConditions.desired(accepted(List.of()),
        new RouteConditions.Endpoints(2, 2, true, List.of("sql-v2"))), "Ready");
    assertThat(missing.getStatus() + "/" + missing.getReason()).isEqualTo("False/ModelNotServed");
    assertThat(missing.getMessage()).endsWith("serves sql-v2");
  }

  @Test
  void nothingIsWrittenWhenNothingChangedAndTransitionTimesMoveOnlyWithTheStatus() {
    List<Condition> first = RouteConditions.merge(
        RouteConditions.desired(accepted(List.of()), served(2, 2)), null, T1);
    assertThat(first).allMatch(c -> c.getLastTransitionTime().equals("2026-11-22T10:00:00Z"));

    assertThat(RouteConditions.merge(
        RouteConditions.desired(accepted(List.of()), served(5, 3)), first, T2))
        .as("other endpoint counts, same conditions: no write").isNull();

    List<Condition> down = RouteConditions.merge(
        RouteConditions.desired(accepted(List.of()), served(2, 0)), first, T2);
    assertThat(find(down, "Ready").getLastTransitionTime()).isEqualTo("2026-11-22T10:05:00Z");
    assertThat(find(down, "Accepted").getLastTransitionTime()).isEqualTo("2026-11-22T10:00:00Z");

    List<Condition> empty = RouteConditions.merge(
        RouteConditions.desired(accepted(List.of()), served(0, 0)), down, T2.plusSeconds(60));
    assertThat(find(empty, "Ready").getMessage()).isEqualTo("its pools select no ready pod");
    assertThat(find(empty, "Ready").getLastTransitionTime()).as("still False: the time of becoming False stays")
        .isEqualTo("2026-11-22T10:05:00Z");
  }
}
