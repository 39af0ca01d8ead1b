package io.llmgw.extproc.capacity.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.PodMetrics;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 52: a pod's batch limit shows only while its queue lasts from one scrape to the next. */
class BatchLimitsTest {
  final Map<String, PodMetrics> now = new HashMap<>();
  final BatchLimits limits = new BatchLimits(now::get);

  private void scrape(String address, int waiting, int running) {
    now.put(address, new PodMetrics(waiting, running, 0.1, 0, Set.of(), Set.of(), Set.of(), Set.of(), Instant.EPOCH));
    limits.scraped(address);
  }

  @Test
  void aQueueSeenOnceIsARequestBetweenTwoStepsNotAFullBatch() {
    scrape("a", 1, 2);
    scrape("a", 0, 3);
    scrape("a", 1, 3);
    assertThat(limits.of(List.of("a"))).isZero();
  }

  @Test
  void aQueueThatLastsShowsTheLimitAndThePoolTakesTheLargest() {
    scrape("a", 3, 8);
    scrape("a", 2, 8);
    scrape("b", 4, 6);
    scrape("b", 4, 7);
    assertThat(limits.of(List.of("a", "b"))).isEqualTo(8);
    assertThat(limits.of(List.of("b"))).isEqualTo(7);
    limits.retainOnly(Set.of("b"));
    assertThat(limits.of(List.of("a"))).isZero();
  }

  @Test
  void aPodWithoutMetricsTeachesNothing() {
    limits.scraped("nowhere");
    assertThat(limits.of(List.of("nowhere"))).isZero();
  }

  @Test
  void thePoolsKvCacheIsItsSmallestPodsAndGarbageIsIgnored() {
    limits.kvCache("a", 65_536);
    limits.kvCache("b", 32_768);
    limits.kvCache("c", 0);
    limits.kvCache("d", -5);
    assertThat(limits.kvCacheTokens(List.of("a", "b", "c", "d"))).isEqualTo(32_768);
    assertThat(limits.kvCacheTokens(List.of("c", "d"))).as("nobody said").isZero();
    limits.retainOnly(Set.of("a"));
    assertThat(limits.kvCacheTokens(List.of("a", "b"))).isEqualTo(65_536);
  }
}
