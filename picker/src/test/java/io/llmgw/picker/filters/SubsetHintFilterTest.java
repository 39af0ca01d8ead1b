package io.llmgw.picker.filters;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SubsetHintFilterTest {
  final SubsetHintFilter filter = new SubsetHintFilter();
  final EndpointState p1 = pod(1, metrics(0, 0, Set.of()), InFlight.NONE);

  @Test
  void withoutAHintEveryEndpointIsAllowed() {
    assertThat(filter.keep(PickRequest.of("m"), p1)).isTrue();
  }

  @Test
  void withAHintOnlyListedAddressesPass() {
    assertThat(filter.keep(PickRequest.of("m").withSubset(Set.of("127.0.0.1:8000")), p1)).isTrue();
    assertThat(filter.keep(PickRequest.of("m").withSubset(Set.of("127.0.0.2:8000")), p1)).isFalse();
  }

  @Test
  void aMismatchIsReportedAsSuchAndAnEmptyHintSaysSo() {
    PickOutcome.NoEndpoint other = filter.whyNone(PickRequest.of("m").withSubset(Set.of("10.9.9.9:1")), List.of(p1));
    assertThat(other.code()).isEqualTo("subset_mismatch");
    assertThat(other.detail()).contains("10.9.9.9:1");
    assertThat(filter.whyNone(PickRequest.of("m").withSubset(Set.of()), List.of(p1)).detail())
        .isEqualTo("the proxy's subset hint is empty");
  }
}
