package io.llmgw.picker;

import static io.llmgw.picker.Pods.NOW;
import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.config.PolicyShorthand;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code --policy scorers}: the reference EPP's scorer set. */
class ScorerPolicyTest {
  final SchedulingProfile scorers = Profiles.of(PolicyShorthand.SCORERS, 50, new Random(3));

  @Test
  void prefersShortQueuesAndFreeKvCache() {
    var idle = pod(1, metrics(0, 0.1, Set.of("a")), InFlight.NONE);
    var queued = pod(2, metrics(8, 0.1, Set.of("a")), InFlight.NONE);
    var full = pod(3, metrics(0, 0.95, Set.of("a")), InFlight.NONE);
    assertThat(primary(PickRequest.of("a"), List.of(queued, full, idle))).isSameAs(idle);
  }

  /** Issue 13, item 10: the queue is the pod's report plus what this gateway sent it since, not either alone. */
  @Test
  void item10TheQueueCountsRequestsSentSinceThePodsReport() {
    var quietReport = pod(1, metrics(0, 0.1, Set.of("a")), new Pods.Pending().set("a", 6));
    var longerReport = pod(2, metrics(3, 0.1, Set.of("a")), InFlight.NONE);
    assertThat(quietReport.queued()).isEqualTo(6);
    assertThat(primary(PickRequest.of("a"), List.of(quietReport, longerReport))).isSameAs(longerReport);
  }

  @Test
  void loraAffinityBreaksOtherwiseEqualLoad() {
    var resident = pod(1, metrics(0, 0.2, Set.of("a")), InFlight.NONE);
    var saturatedSlots = pod(2, new PodMetrics(0, 0, 0.2, 1, Set.of("z"), Set.of(), Set.of(), Set.of(), NOW),
        InFlight.NONE);
    assertThat(primary(PickRequest.of("a"), List.of(saturatedSlots, resident))).isSameAs(resident);
  }

  @Test
  void requestsSharingAPromptPrefixFollowEachOther() {
    PrefixHasher hasher = new PrefixHasher();
    byte[] prompt = "You are a helpful assistant. ".repeat(40).getBytes(StandardCharsets.UTF_8);
    long[] blocks = hasher.blocks("a", prompt, prompt.length);
    List<EndpointState> pool = List.of(pod(1, metrics(0, 0.2, Set.of("a")), InFlight.NONE),
        pod(2, metrics(0, 0.2, Set.of("a")), InFlight.NONE), pod(3, metrics(0, 0.2, Set.of("a")), InFlight.NONE));

    assertThat(scorers.prefixHasher()).as("the profile hashes prompts for its prefix scorer").isNotNull();
    EndpointState first = primary(PickRequest.of("a").withPrefixBlocks(blocks), pool);
    Map<String, Integer> hits = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      hits.merge(primary(PickRequest.of("a").withPrefixBlocks(blocks), pool).address(), 1, Integer::sum);
    }
    assertThat(hits).containsOnlyKeys(first.address());
  }

  @Test
  void prefixBlocksAreChainedSoOnlyTheSharedPrefixMatches() {
    PrefixHasher hasher = new PrefixHasher(4, 256);
    byte[] a = "aaaabbbbcccc".getBytes(StandardCharsets.UTF_8);
    byte[] b = "aaaaXbbbcccc".getBytes(StandardCharsets.UTF_8);
    long[] ha = hasher.blocks("m", a, a.length);
    long[] hb = hasher.blocks("m", b, b.length);
    assertThat(ha).hasSize(3);
    assertThat(ha[0]).isEqualTo(hb[0]);
    assertThat(ha[1]).isNotEqualTo(hb[1]);
    assertThat(ha[2]).isNotEqualTo(hb[2]);
    assertThat(hasher.blocks("other", a, a.length)[0]).isNotEqualTo(ha[0]);
  }

  @Test
  void equalScoresSpreadAtRandom() {
    List<EndpointState> pool = List.of(pod(1, metrics(0, 0, Set.of()), InFlight.NONE),
        pod(2, metrics(0, 0, Set.of()), InFlight.NONE), pod(3, metrics(0, 0, Set.of()), InFlight.NONE));
    Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < 60; i++) {
      seen.add(primary(PickRequest.of("base"), pool).address());
    }
    assertThat(seen).hasSize(3);
  }

  @Test
  void saturationIsTheMeanOfQueueAndKvRatiosWithStaleCountingAsFull() {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    SaturationDetector d = SaturationDetector.defaults(clock);
    var calm = pod(1, metrics(0, 0.4, Set.of()), InFlight.NONE);
    var queued = pod(2, metrics(10, 0.1, Set.of()), InFlight.NONE);
    assertThat(d.saturation(List.of(calm, queued))).isEqualTo((0.5 + 2.0) / 2);
    assertThat(d.saturated(List.of(calm, queued))).isTrue();
    assertThat(d.saturated(List.of(calm))).isFalse();
    SaturationDetector later = SaturationDetector.defaults(Clock.fixed(NOW.plusSeconds(1), ZoneOffset.UTC));
    assertThat(later.saturation(List.of(calm))).isEqualTo(1.0);
  }

  /**
   * Issue 27: the headroom is exactly how many more requests, one more queued each, the pool takes before the detector
   * calls it saturated; what the dispatcher may send before this EPP sheds its lines.
   */
  @Test
  void theHeadroomIsWhatThePoolTakesBeforeItIsSaturated() {
    SaturationDetector d = SaturationDetector.defaults(Clock.fixed(NOW, ZoneOffset.UTC));
    List<EndpointState> idle = List.of(pod(1, metrics(0, 0, Set.of()), new Pods.Pending()),
        pod(2, metrics(0, 0, Set.of()), new Pods.Pending()), pod(3, metrics(0, 0, Set.of()), new Pods.Pending()),
        pod(4, metrics(0, 0, Set.of()), new Pods.Pending()));
    int room = d.headroom(idle);
    assertThat(room).as("4 pods × queue limit 5, less the one that saturates").isEqualTo(19);
    // send them, spread: one more queued at the pod with the least until the headroom is spent
    List<Pods.Pending> sent = idle.stream().map(e -> (Pods.Pending) e.inFlight()).toList();
    for (int i = 0; i < room; i++) {
      sent.get(i % 4).set("base", sent.get(i % 4).forModel("base") + 1);
    }
    assertThat(d.saturated(idle)).as("after the headroom").isFalse();
    assertThat(d.headroom(idle)).isZero();
    sent.getFirst().set("base", sent.getFirst().forModel("base") + 1);
    assertThat(d.saturated(idle)).as("one more").isTrue();
    assertThat(d.headroom(List.of())).isZero();
    var kvFull = pod(5, metrics(0, 0.8, Set.of()), new Pods.Pending());
    assertThat(d.headroom(List.of(kvFull))).isZero();
  }

  private EndpointState primary(PickRequest req, List<EndpointState> pool) {
    return Profiles.primary(scorers, req, pool);
  }
}
