package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.state.PeerSpend.Departed;
import io.llmgw.extproc.tenancy.core.BudgetVerdict;
import io.llmgw.extproc.tenancy.core.TenantLedger;
import io.llmgw.extproc.tenancy.core.TenantLimits;
import io.llmgw.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 51, item 3: what tenants spent through replicas that are cut off, die, restart or leave. */
class PeerSpendTest {
  private static final Duration FRESH = Duration.ofMillis(500);
  private final ManualClock clock = new ManualClock(Instant.parse("2026-11-28T12:00:00Z"));

  private static Map<String, long[]> spent(long minute, long day, long inFlight) {
    return Map.of("team-a", new long[] {minute, day, inFlight});
  }

  @Test
  void aPeerHeardNowCountsWhatItSaidAndOneNotHeardCountsAtLeastItsShare() {
    PeerSpend s = new PeerSpend(clock, FRESH);
    s.expect(Set.of("b:9003", "c:9003", "d:9003"));
    s.update("b:9003", "B", spent(100, 100, 1));
    s.update("c:9003", "C", spent(900, 900, 3));
    // d never heard: its share, a quarter of the limit; b and c heard now: what they said
    assertThat(s.minuteHeld("team-a", 1_000)).isEqualTo(100 + 900 + 250);
    assertThat(s.inFlightHeld("team-a", 8)).isEqualTo(1 + 3 + 2);
    assertThat(s.unreachable()).isEqualTo(1);
    assertThat(s.lastMinute("team-a")).as("shown without shares").isEqualTo(1_000);

    clock.advance(Duration.ofMillis(600)); // nobody spoke for longer than the freshness
    assertThat(s.minuteHeld("team-a", 1_000)).as("b's share over what it said, c's figure over its share")
        .isEqualTo(250 + 900 + 250);
    assertThat(s.minuteHeld("team-a", Long.MAX_VALUE)).as("no limit, no share").isEqualTo(1_000);
    s.update("b:9003", "B", spent(120, 120, 0));
    s.silence("c:9003"); // its stream failed: not heard now, at once
    assertThat(s.minuteHeld("team-a", 1_000)).isEqualTo(120 + 900 + 250);
    assertThat(s.unreachable()).isEqualTo(2);
  }

  /**
   * The bound the docs state: however the replicas are split, and however long, each side admits against what it
   * hears and the others' shares, and together they admit no more than the limit (beyond what they admitted before
   * they noticed, which this model starts from zero).
   */
  @Test
  void sidesOfAPartitionTogetherAdmitNoMoreThanTheLimitHoweverLong() {
    Random random = new Random(51);
    for (int trial = 0; trial < 200; trial++) {
      int n = 2 + random.nextInt(7);
      long limit = 1_000 + random.nextInt(100_000);
      TenantLimits limits = new TenantLimits(limit, Long.MAX_VALUE, Integer.MAX_VALUE);
      List<TenantLedger> ledgers = new ArrayList<>();
      List<PeerSpend> views = new ArrayList<>();
      int[] side = new int[n];
      for (int i = 0; i < n; i++) {
        ledgers.add(new TenantLedger("team-a", limits));
        PeerSpend v = new PeerSpend(clock, FRESH);
        Set<String> others = new HashSet<>();
        for (int j = 0; j < n; j++) {
          if (j != i) {
            others.add("r" + j);
          }
        }
        v.expect(others);
        views.add(v);
        side[i] = random.nextInt(1 + random.nextInt(n)); // some sides, possibly one
      }
      int[] whole = new int[n];
      long now = clock.millis();
      for (int step = 0; step < 400; step++) {
        int i = random.nextInt(n);
        int[] sides = step < 100 ? whole : side; // all hear each other, then the cut
        for (int j = 0; j < n; j++) { // what i hears now: the replicas on its side
          if (j != i && sides[j] == sides[i]) {
            views.get(i).update("r" + j, "R" + j, spent(ledgers.get(j).spentLastMinute(now), 0, 0));
          } else if (j != i) {
            views.get(i).silence("r" + j);
          }
        }
        BudgetVerdict v = ledgers.get(i).reserve(1 + random.nextInt((int) (limit / 20)), now,
            views.get(i).minuteHeld("team-a", limit), 0, 0);
        assertThat(v).isNotNull();
      }
      long total = ledgers.stream().mapToLong(l -> l.spentLastMinute(now)).sum();
      assertThat(total).as("trial %d: %d replicas, limit %d", trial, n, limit).isLessThanOrEqualTo(limit);
    }
  }

  @Test
  void aRestartedPeerIsANewReplicaAndWhatItsFormerSelfSpentStaysSpentForTheWindow() {
    PeerSpend s = new PeerSpend(clock, FRESH);
    s.expect(Set.of("b:9003"));
    s.update("b:9003", "B", spent(700, 5_000, 2));
    s.silence("b:9003"); // SIGKILLed: its stream failed
    clock.advance(Duration.ofSeconds(3));
    s.update("b:9003", "B2", spent(0, 0, 0)); // the same address, a new process
    assertThat(s.departed()).isEqualTo(1);
    assertThat(s.minuteHeld("team-a", 1_000)).as("B's minute, held; B2 heard with nothing yet").isEqualTo(700);
    assertThat(s.dayHeld("team-a", 100_000)).isEqualTo(5_000);
    assertThat(s.inFlightHeld("team-a", 8)).as("a replica that left has nothing in flight").isZero();
    clock.advance(Duration.ofSeconds(60));
    s.update("b:9003", "B2", spent(10, 10, 0));
    assertThat(s.minuteHeld("team-a", 1_000)).as("past a minute since it left: its minute is over").isEqualTo(10);
    assertThat(s.dayHeld("team-a", 100_000)).as("its day is not").isEqualTo(5_010);
    clock.advance(Duration.ofHours(24));
    s.update("b:9003", "B2", spent(10, 10, 0));
    assertThat(s.dayHeld("team-a", 100_000)).isEqualTo(10);
  }

  @Test
  void aPartitionThatHealsCountsThePeerOnceAndAPeerThatShutDownIsHeldWithoutAShareOfItsOwn() {
    PeerSpend s = new PeerSpend(clock, FRESH);
    s.expect(Set.of("b:9003"));
    s.update("b:9003", "B", spent(300, 300, 0));
    s.silence("b:9003");
    s.update("b:9003", "B", spent(350, 350, 0)); // heard again: the same process
    assertThat(s.departed()).isZero();
    assertThat(s.minuteHeld("team-a", 1_000)).isEqualTo(350);

    s.ended("b:9003"); // it shut down: what it spent is held; its address, not heard, holds a share
    assertThat(s.departed()).isEqualTo(1);
    assertThat(s.minuteHeld("team-a", 1_000)).isEqualTo(350 + 500);
    s.expect(Set.of()); // no longer a peer at all
    assertThat(s.minuteHeld("team-a", 1_000)).isEqualTo(350);
  }

  @Test
  void aNewReplicaHoldsWhatItsPeersHoldUnheardButNotWhatItHearsItselfNorItsOwn() {
    PeerSpend survivor = new PeerSpend(clock, FRESH);
    survivor.expect(Set.of("b:9003", "c:9003"));
    survivor.update("b:9003", "B", spent(400, 4_000, 1));
    survivor.update("c:9003", "C", spent(100, 1_000, 0));
    survivor.ended("b:9003");
    clock.advance(Duration.ofSeconds(1));
    survivor.silence("c:9003");
    List<Departed> greeting = survivor.unheard();
    assertThat(greeting).extracting(Departed::sender).containsExactlyInAnyOrder("B", "C");
    assertThat(greeting).filteredOn(d -> d.sender().equals("B")).singleElement()
        .extracting(Departed::ageMillis).isEqualTo(1_000L);

    PeerSpend fresh = new PeerSpend(clock, FRESH);
    fresh.expect(Set.of("a:9003", "c:9003"));
    fresh.update("c:9003", "C", spent(120, 1_020, 0));
    List<Departed> withOwn = new ArrayList<>(greeting);
    withOwn.add(new Departed("SELF", 0, spent(999, 999, 0)));
    fresh.learn(withOwn, "SELF");
    fresh.update("a:9003", "A", spent(0, 0, 0));
    assertThat(fresh.departed()).as("B only: C is heard here, SELF is this replica").isEqualTo(1);
    assertThat(fresh.minuteHeld("team-a", 1_000)).isEqualTo(400 + 120);
    clock.advance(Duration.ofSeconds(59));
    fresh.update("a:9003", "A", spent(0, 0, 0));
    fresh.update("c:9003", "C", spent(120, 1_020, 0));
    assertThat(fresh.minuteHeld("team-a", 1_000)).as("B left a minute ago, counted from when it left")
        .isEqualTo(120);
    assertThat(fresh.dayHeld("team-a", 1_000_000)).isEqualTo(4_000 + 1_020);
  }

  @Test
  void departedReplicasAreBounded() {
    PeerSpend s = new PeerSpend(clock, FRESH);
    List<Departed> many = new ArrayList<>();
    for (int i = 0; i < PeerSpend.MAX_DEPARTED + 100; i++) {
      many.add(new Departed("R" + i, 1_000L * i, new HashMap<>(spent(1, 1, 0))));
    }
    s.learn(many, "SELF");
    assertThat(s.departed()).isEqualTo(PeerSpend.MAX_DEPARTED);
    assertThat(s.lastDay("team-a")).as("the newest kept").isEqualTo(PeerSpend.MAX_DEPARTED);
    s.learn(List.of(new Departed("OLD", Duration.ofDays(2).toMillis(), spent(5, 5, 0))), "SELF");
    assertThat(s.lastDay("team-a")).as("left more than a day ago: nothing to hold").isEqualTo(PeerSpend.MAX_DEPARTED);
  }
}
