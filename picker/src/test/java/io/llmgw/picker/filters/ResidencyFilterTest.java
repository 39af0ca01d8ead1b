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

class ResidencyFilterTest {
  final ResidencyFilter filter = new ResidencyFilter();
  final EndpointState p1 = pod(1, metrics(0, 0, Set.of()), InFlight.NONE);

  @Test
  void aRequestNeedingNoParticularAdapterMayGoAnywhere() {
    assertThat(filter.keep(PickRequest.of("base"), p1)).isTrue();
  }

  @Test
  void onlyTheHoldersTheLifecycleFoundPass() {
    assertThat(filter.keep(PickRequest.of("a").withHolders(Set.of("127.0.0.1:8000")), p1)).isTrue();
    assertThat(filter.keep(PickRequest.of("a").withHolders(Set.of("127.0.0.2:8000")), p1)).isFalse();
  }

  @Test
  void whenNoneIsLeftTheAnswerNamesTheAdapterAndWhereItIs() {
    PickOutcome.NoEndpoint elsewhere = filter.whyNone(PickRequest.of("a").withHolders(Set.of("127.0.0.2:8000")),
        List.of(p1));
    assertThat(elsewhere.code()).isEqualTo("no_ready_endpoint");
    assertThat(elsewhere.detail()).contains("'a'", "127.0.0.2:8000");
    assertThat(filter.whyNone(PickRequest.of("a").withHolders(Set.of()), List.of(p1)).detail())
        .isEqualTo("no reachable endpoint serves 'a' (none lists it as its model or a loaded adapter)");
  }
}
