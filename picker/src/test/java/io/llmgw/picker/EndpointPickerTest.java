package io.llmgw.picker;

import static io.llmgw.picker.Pods.NOW;
import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EndpointPickerTest {
  final Random random = new Random(1);

  EndpointPicker picker(Clock clock) {
    return new EndpointPicker(Policies.seed(50, () -> random), clock, Duration.ofSeconds(2), 2);
  }

  @Test
  void staleOrFailingEndpointsAreNeverPicked() {
    Clock later = Clock.fixed(NOW.plusSeconds(3), ZoneOffset.UTC);
    var stale = pod(1, metrics(0, 0, Set.of("a")), InFlight.NONE);
    var fresh = new EndpointState(pod(2, null, InFlight.NONE).endpoint(),
        new PodMetrics(9, 0, 0.9, 4, Set.of(), Set.of(), Set.of(), Set.of(), NOW.plusSeconds(2)), true, InFlight.NONE);
    var failing = new EndpointState(pod(3, null, InFlight.NONE).endpoint(), fresh.metrics(), false, InFlight.NONE);

    PickOutcome o = picker(later).pick(PickRequest.of("a"), List.of(stale, fresh, failing));

    assertThat(o).isInstanceOfSatisfying(PickOutcome.Picked.class,
        p -> assertThat(p.decision().ranked()).containsExactly(fresh));
    assertThat(picker(later).pick(PickRequest.of("a"), List.of(stale, failing)))
        .isInstanceOf(PickOutcome.NoReadyEndpoint.class);
    assertThat(picker(later).pick(PickRequest.of("a"), List.of())).isInstanceOf(PickOutcome.NoReadyEndpoint.class);
  }

  @Test
  void subsetHintRestrictsTheChoiceAndAMismatchIsReported() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    var p1 = pod(1, metrics(0, 0, Set.of("a")), InFlight.NONE);
    var p2 = pod(2, metrics(0, 0, Set.of()), InFlight.NONE);

    PickOutcome inside = picker(clock).pick(new PickRequest("a", 0, new long[0], Set.of("127.0.0.2:8000")), List.of(p1, p2));
    assertThat(inside).isInstanceOfSatisfying(PickOutcome.Picked.class,
        p -> assertThat(p.decision().destinationValue()).isEqualTo("127.0.0.2:8000"));

    assertThat(picker(clock).pick(new PickRequest("a", 0, new long[0], Set.of("10.9.9.9:1")), List.of(p1, p2)))
        .isInstanceOf(PickOutcome.SubsetMismatch.class);
    assertThat(picker(clock).pick(new PickRequest("a", 0, new long[0], Set.of()), List.of(p1, p2)))
        .isInstanceOf(PickOutcome.SubsetMismatch.class);
  }

  @Test
  void destinationListsPrimaryThenAtMostTwoFallbacks() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    List<EndpointState> pool = List.of(
        pod(1, metrics(0, 0, Set.of()), InFlight.NONE), pod(2, metrics(0, 0, Set.of()), InFlight.NONE),
        pod(3, metrics(0, 0, Set.of()), InFlight.NONE), pod(4, metrics(0, 0, Set.of()), InFlight.NONE));
    PickOutcome o = picker(clock).pick(PickRequest.of("a"), pool);
    assertThat(((PickOutcome.Picked) o).decision().destinationValue().split(",")).hasSize(3).doesNotHaveDuplicates();
  }
}
