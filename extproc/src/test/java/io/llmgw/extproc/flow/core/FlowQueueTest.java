package io.llmgw.extproc.flow.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class FlowQueueTest {
  private static final Predicate<FlowItem<String>> ANY = i -> true;
  private final AtomicLong nowMillis = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
  private final InstantSource clock = () -> Instant.ofEpochMilli(nowMillis.get());

  private FlowQueue<String> queue(FlowSettings s) {
    return new FlowQueue<>(s, clock);
  }

  private static FlowSettings settings(FlowSettings.Fairness f, FlowSettings.Ordering o) {
    return FlowSettings.defaults().with(f, o);
  }

  private FlowItem<String> offer(FlowQueue<String> q, int priority, String flow, String name) {
    return offer(q, priority, flow, name, Long.MAX_VALUE, 100);
  }

  private FlowItem<String> offer(FlowQueue<String> q, int priority, String flow, String name, long deadline,
      long bytes) {
    FlowItem<String> item = q.item(priority, flow, bytes, deadline, name);
    assertInstanceOf(Admission.Queued.class, q.offer(item));
    return item;
  }

  private static List<String> drain(FlowQueue<String> q) {
    List<String> out = new ArrayList<>();
    FlowItem<String> i;
    while ((i = q.poll(ANY)) != null) {
      out.add(i.payload());
    }
    return out;
  }

  @Test
  void higherPriorityBandsAreServedFirstWhateverTheArrivalOrder() {
    FlowQueue<String> q = queue(FlowSettings.defaults());
    offer(q, 0, "a", "low-1");
    offer(q, 100, "b", "high-1");
    offer(q, -5, "c", "sheddable");
    offer(q, 100, "b", "high-2");
    offer(q, 0, "a", "low-2");
    assertEquals(List.of("high-1", "high-2", "low-1", "low-2", "sheddable"), drain(q));
    assertTrue(q.isEmpty());
    assertEquals(0, q.bytes());
  }

  @Test
  void roundRobinAlternatesFlowsSoAFloodDoesNotDelayAQuietFlow() {
    FlowQueue<String> q = queue(settings(FlowSettings.Fairness.ROUND_ROBIN, FlowSettings.Ordering.FCFS));
    for (int i = 1; i <= 5; i++) {
      offer(q, 0, "loud", "loud-" + i);
    }
    offer(q, 0, "quiet", "quiet-1");
    offer(q, 0, "quiet", "quiet-2");
    assertEquals(List.of("loud-1", "quiet-1", "loud-2", "quiet-2", "loud-3", "loud-4", "loud-5"), drain(q));
  }

  @Test
  void strictFairnessServesTheBandInArrivalOrder() {
    FlowQueue<String> q = queue(settings(FlowSettings.Fairness.STRICT, FlowSettings.Ordering.FCFS));
    offer(q, 0, "loud", "loud-1");
    offer(q, 0, "loud", "loud-2");
    offer(q, 0, "quiet", "quiet-1");
    offer(q, 0, "loud", "loud-3");
    assertEquals(List.of("loud-1", "loud-2", "quiet-1", "loud-3"), drain(q));
  }

  @Test
  void earliestDeadlineFirstWithinAFlowAndFcfsAmongEqualDeadlines() {
    FlowQueue<String> q = queue(settings(FlowSettings.Fairness.ROUND_ROBIN, FlowSettings.Ordering.EDF));
    offer(q, 0, "f", "late", 9_000, 10);
    offer(q, 0, "f", "soon", 1_000, 10);
    offer(q, 0, "f", "mid-a", 5_000, 10);
    offer(q, 0, "f", "mid-b", 5_000, 10);
    assertEquals(List.of("soon", "mid-a", "mid-b", "late"), drain(q));
  }

  @Test
  void fcfsIgnoresDeadlines() {
    FlowQueue<String> q = queue(settings(FlowSettings.Fairness.ROUND_ROBIN, FlowSettings.Ordering.FCFS));
    offer(q, 0, "f", "first", 9_000, 10);
    offer(q, 0, "f", "second", 1_000, 10);
    assertEquals(List.of("first", "second"), drain(q));
  }

  @Test
  void itemsExpireAfterTheTtlByTheClockAndNotBefore() {
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 100, 1 << 20, 100, 1 << 20));
    offer(q, 0, "f", "old");
    nowMillis.addAndGet(10_000);
    offer(q, 0, "f", "young");
    assertEquals(clock.millis() + 20_000, q.nextExpiryMillis());
    nowMillis.addAndGet(19_999);
    assertTrue(q.expire().isEmpty());
    nowMillis.addAndGet(1);
    List<FlowItem<String>> expired = q.expire();
    assertEquals(List.of("old"), expired.stream().map(FlowItem::payload).toList());
    assertEquals(1, q.size());
    nowMillis.addAndGet(10_000);
    assertEquals(List.of("young"), q.expire().stream().map(FlowItem::payload).toList());
    assertEquals(Long.MAX_VALUE, q.nextExpiryMillis());
  }

  @Test
  void aCancelledItemLeavesAtOnceAndOnlyOnce() {
    FlowQueue<String> q = queue(FlowSettings.defaults());
    FlowItem<String> gone = offer(q, 0, "f", "gone");
    offer(q, 0, "f", "stays");
    assertTrue(q.remove(gone));
    assertFalse(q.remove(gone));
    assertEquals(1, q.size());
    assertEquals(100, q.bytes());
    assertEquals(List.of("stays"), drain(q));
  }

  @Test
  void aFullQueueRefusesTheNewcomerOfTheLowestBand() {
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 2, 1 << 20, 10, 1 << 20));
    offer(q, 0, "a", "one");
    offer(q, 0, "b", "two");
    Admission<String> third = q.offer(q.item(0, "c", 100, Long.MAX_VALUE, "three"));
    Admission.Refused<String> refused = assertInstanceOf(Admission.Refused.class, third);
    assertTrue(refused.reason().contains("full"), refused.reason());
    assertEquals(List.of("one", "two"), drain(q));
  }

  @Test
  void aHigherPriorityNewcomerEvictsTheLowestBandsLastItem() {
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 2, 1 << 20, 10, 1 << 20));
    offer(q, -1, "batch", "batch-1");
    offer(q, -1, "batch", "batch-2");
    Admission<String> a = q.offer(q.item(100, "chat", 100, Long.MAX_VALUE, "chat-1"));
    Admission.Queued<String> queued = assertInstanceOf(Admission.Queued.class, a);
    assertEquals(List.of("batch-2"), queued.evicted().stream().map(FlowItem::payload).toList());
    assertEquals(List.of("chat-1", "batch-1"), drain(q));
  }

  @Test
  void aQuietFlowTakesThePlaceOfTheLongestFlowInItsBand() {
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 100, 1 << 20, 3, 1 << 20));
    offer(q, 0, "loud", "loud-1");
    offer(q, 0, "loud", "loud-2");
    offer(q, 0, "loud", "loud-3");
    Admission.Queued<String> queued = assertInstanceOf(Admission.Queued.class,
        q.offer(q.item(0, "quiet", 100, Long.MAX_VALUE, "quiet-1")));
    assertEquals(List.of("loud-3"), queued.evicted().stream().map(FlowItem::payload).toList());
    // the loud flow cannot evict itself, nor the quiet flow which is shorter
    assertInstanceOf(Admission.Refused.class, q.offer(q.item(0, "loud", 100, Long.MAX_VALUE, "loud-4")));
    assertEquals(List.of("loud-1", "quiet-1", "loud-2"), drain(q));
  }

  @Test
  void byteLimitsCountBodiesAndAnOversizedBodyIsRefusedOutright() {
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 100, 1_000, 100, 600));
    offer(q, 0, "a", "five-hundred", Long.MAX_VALUE, 500);
    assertInstanceOf(Admission.Refused.class, q.offer(q.item(0, "a", 200, Long.MAX_VALUE, "over-band")));
    offer(q, 1, "b", "other-band", Long.MAX_VALUE, 400);
    assertEquals(900, q.bytes());
    Admission.Refused<String> huge = assertInstanceOf(Admission.Refused.class,
        q.offer(q.item(5, "c", 2_000, Long.MAX_VALUE, "huge")));
    assertTrue(huge.reason().contains("exceeds"), huge.reason());
    assertEquals(2, q.size());
  }

  @Test
  void aRefusalAfterTentativeEvictionsPutsTheVictimsBack() {
    // global limit 4 bytes-wise: the newcomer needs more room than the one lower item frees
    FlowQueue<String> q = queue(FlowSettings.defaults().withLimits(Duration.ofSeconds(30), 100, 1_000, 100, 1_000));
    offer(q, -1, "batch", "small", Long.MAX_VALUE, 100);
    offer(q, 0, "a", "big", Long.MAX_VALUE, 800);
    assertInstanceOf(Admission.Refused.class, q.offer(q.item(0, "a", 300, Long.MAX_VALUE, "too-much")));
    assertEquals(2, q.size());
    assertEquals(900, q.bytes());
    assertEquals(List.of("big", "small"), drain(q));
  }

  @Test
  void anIneligibleBandBlocksLowerBandsButNotItsOtherFlows() {
    FlowQueue<String> q = queue(FlowSettings.defaults());
    offer(q, 10, "slo", "needs-fast-pod");
    offer(q, 10, "plain", "plain-high");
    offer(q, 0, "low", "low");
    Predicate<FlowItem<String>> notSlo = i -> !i.payload().equals("needs-fast-pod");
    assertEquals("plain-high", q.poll(notSlo).payload());
    assertNull(q.poll(notSlo), "the band's remaining request waits, and the lower band waits behind it");
    assertEquals(Map1.of(10, 1, 0, 1), q.sizeByPriority());
    assertEquals("needs-fast-pod", q.poll(ANY).payload());
    assertEquals("low", q.poll(ANY).payload());
  }

  /** Map.of keeps no order; the queue reports highest priority first. */
  private static final class Map1 {
    static java.util.Map<Integer, Integer> of(int k1, int v1, int k2, int v2) {
      java.util.Map<Integer, Integer> m = new java.util.LinkedHashMap<>();
      m.put(k1, v1);
      m.put(k2, v2);
      return m;
    }
  }
}
