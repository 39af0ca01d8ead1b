package io.llmgw.picker;

import static io.llmgw.picker.Pods.NOW;
import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.config.PluginRegistry;
import io.llmgw.picker.config.PolicyShorthand;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One scheduling cycle: the required filters in order, what each answers when it leaves nothing, timings. */
class SchedulingProfileTest {
  final SchedulingProfile seed = Profiles.of(PolicyShorthand.SEED, 50, new Random(1));
  final EndpointState p1 = pod(1, metrics(0, 0, Set.of("a")), InFlight.NONE);
  final EndpointState p2 = pod(2, metrics(0, 0, Set.of()), InFlight.NONE);

  @Test
  void staleOrFailingEndpointsAreNeverPicked() {
    SchedulingProfile later = Profiles.build(PolicyShorthand.SEED.config(50),
        Clock.fixed(NOW.plusSeconds(3), ZoneOffset.UTC), new Random(1));
    var stale = pod(1, metrics(0, 0, Set.of("a")), InFlight.NONE);
    var fresh = new EndpointState(pod(2, null, InFlight.NONE).endpoint(),
        new PodMetrics(9, 0, 0.9, 4, Set.of(), Set.of(), Set.of(), Set.of(), NOW.plusSeconds(2)), true, InFlight.NONE);
    var failing = new EndpointState(pod(3, null, InFlight.NONE).endpoint(), fresh.metrics(), false, InFlight.NONE);

    assertThat(Profiles.picked(later, PickRequest.of("a"), List.of(stale, fresh, failing)).ranked())
        .containsExactly(fresh);
    assertThat(later.schedule(PickRequest.of("a"), List.of(stale, failing)))
        .isEqualTo(new PickOutcome.NoEndpoint("no_ready_endpoint", "none of its 2 endpoints has fresh metrics"));
    assertThat(later.schedule(PickRequest.of("a"), List.of()))
        .isEqualTo(new PickOutcome.NoEndpoint("no_ready_endpoint", "its pool has no ready pods"));
  }

  /** Issue 32, item 1: a decision explained names the filters' survivors, each scorer's scores and the ranking. */
  @Test
  void anExplainedDecisionRecordsEachStepAndPicksAsAnUnexplainedOne() {
    SchedulingProfile scorers = Profiles.of(PolicyShorthand.SCORERS, 50, new Random(1));
    var busy = pod(3, metrics(6, 0.5, Set.of("a")), InFlight.NONE);
    Explanation explain = new Explanation();
    PickOutcome explained = scorers.schedule(PickRequest.of("a"), List.of(p1, p2, busy), explain);
    PickOutcome plain = Profiles.of(PolicyShorthand.SCORERS, 50, new Random(1)).schedule(PickRequest.of("a"),
        List.of(p1, p2, busy));
    String primary = ((PickOutcome.Picked) explained).decision().primary().address();
    assertThat(primary).as("explaining changes nothing").isEqualTo(((PickOutcome.Picked) plain).decision().primary()
        .address());
    Explanation.Snapshot s = explain.snapshot();
    assertThat(s.candidates()).containsExactly("127.0.0.1:8000", "127.0.0.2:8000", "127.0.0.3:8000");
    assertThat(s.filters()).as("filters that apply to the request").containsExactly(new Explanation.Filtered(
        "fresh-metrics-filter", s.candidates(), 3, 3));
    assertThat(s.filters().getFirst().text()).isEqualTo("fresh-metrics-filter kept 3 of 3");
    assertThat(s.scorers()).extracting(Explanation.Scored::scorer).containsExactly("queue-scorer",
        "kv-cache-utilization-scorer", "prefix-cache-scorer", "lora-affinity-scorer");
    Explanation.Scored queue = s.scorers().getFirst();
    assertThat(queue.weight()).isEqualTo(2.0);
    assertThat(queue.scores()).containsEntry("127.0.0.1:8000", 1.0).containsEntry("127.0.0.3:8000", 0.0);
    assertThat(s.ranked().getFirst()).isEqualTo(primary);
    assertThat(s.totals().get(primary)).isGreaterThan(s.totals().get("127.0.0.3:8000"));
    assertThat(s.noEndpoint()).isNull();

    Explanation none = new Explanation();
    seed.schedule(PickRequest.of("a").withSubset(Set.of("10.9.9.9:1")), List.of(p1, p2), none);
    assertThat(none.snapshot().noEndpoint()).startsWith("subset_mismatch: ");
  }

  @Test
  void theSubsetHintRestrictsTheChoiceAndAMismatchIsReportedAsOne() {
    assertThat(Profiles.picked(seed, PickRequest.of("a").withSubset(Set.of("127.0.0.2:8000")), List.of(p1, p2))
        .destinationValue()).isEqualTo("127.0.0.2:8000");
    assertThat(seed.schedule(PickRequest.of("a").withSubset(Set.of("10.9.9.9:1")), List.of(p1, p2)))
        .isInstanceOfSatisfying(PickOutcome.NoEndpoint.class, n -> assertThat(n.code()).isEqualTo("subset_mismatch"));
  }

  @Test
  void aSubsetThatAllowsOnlyPodsWithoutTheAdapterSaysSoNotThatTheHintIsEmpty() {
    PickOutcome o = seed.schedule(PickRequest.of("a").withSubset(Set.of("127.0.0.2:8000"))
        .withHolders(Set.of("127.0.0.1:8000")), List.of(p1, p2));
    assertThat(o).isEqualTo(new PickOutcome.NoEndpoint("no_ready_endpoint",
        "adapter 'a' is held only by [127.0.0.1:8000], which the request may not use"));
  }

  @Test
  void theDestinationListsThePrimaryThenAtMostTwoFallbacks() {
    List<EndpointState> pool = List.of(pod(1, metrics(0, 0, Set.of()), InFlight.NONE),
        pod(2, metrics(0, 0, Set.of()), InFlight.NONE), pod(3, metrics(0, 0, Set.of()), InFlight.NONE),
        pod(4, metrics(0, 0, Set.of()), InFlight.NONE));
    assertThat(Profiles.picked(seed, PickRequest.of("a"), pool).destinationValue().split(",")).hasSize(3)
        .doesNotHaveDuplicates();
  }

  @Test
  void everyProfileRunsTheRequiredFiltersFirstInTheirOrder() {
    assertThat(seed.plugins()).extracting(PluginId::type).containsExactly("subset-hint-filter",
        "adapter-residency-filter", "latency-objective-filter", "fresh-metrics-filter", "lora-packing-scorer",
        "max-score-picker");
  }

  @Test
  void eachPluginsRunningTimeGoesToItsOwnSink() {
    List<String> observed = new ArrayList<>();
    long[] now = {0};
    Ticker ticker = () -> now[0] += 1_000; // every read is 1 µs after the previous one
    var env = new PluginEnv(Clock.fixed(NOW, ZoneOffset.UTC), ticker, () -> new Random(1),
        Duration.ofSeconds(2), 3, (point, id) -> nanos -> observed.add(point + " " + id.type() + " " + nanos));
    SchedulingProfile timed = PluginRegistry.builtIn().build(PolicyShorthand.SCORERS.config(50), env, w -> {});

    Profiles.picked(timed, PickRequest.of("a").withSubset(Set.of(p1.address(), p2.address())), List.of(p1, p2));

    assertThat(observed).as("filters that cannot drop anything for the request (no holders, no limits) are skipped")
        .containsExactly("filter subset-hint-filter 1000", "filter fresh-metrics-filter 1000",
            "scorer queue-scorer 1000", "scorer kv-cache-utilization-scorer 1000", "scorer prefix-cache-scorer 1000",
            "scorer lora-affinity-scorer 1000", "picker max-score-picker 1000");
  }

  /** Issue 28: a request whose timing was not sampled reads no clock in scheduling and observes nothing. */
  @Test
  void aRequestNotSampledReadsNoClock() {
    List<String> observed = new ArrayList<>();
    int[] reads = {0};
    Ticker ticker = () -> ++reads[0];
    var env = new PluginEnv(Clock.fixed(NOW, ZoneOffset.UTC), ticker, () -> new Random(1),
        Duration.ofSeconds(2), 3, (point, id) -> nanos -> observed.add(point + " " + id.type()));
    SchedulingProfile timed = PluginRegistry.builtIn().build(PolicyShorthand.SCORERS.config(50), env, w -> {});

    PickOutcome outcome = timed.schedule(PickRequest.of("a"), List.of(p1, p2), null, false);

    assertThat(outcome).isInstanceOf(PickOutcome.Picked.class);
    assertThat(reads[0]).isZero();
    assertThat(observed).isEmpty();
  }
}
