package io.llmgw.extproc.tenancy.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Issue 31: reserve before admission, settle from usage, never more than the budget in any window. */
class TenantLedgerTest {
  private static final long T0 = 1_800_000_000_000L;

  @Test
  void aReservationHoldsTokensUntilSettledAndTheRefundMakesRoom() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(1_000, Long.MAX_VALUE, Integer.MAX_VALUE));
    var first = (BudgetVerdict.Reserved) l.reserve(600, T0, 0, 0, 0);
    assertThat(l.reserve(600, T0, 0, 0, 0)).isInstanceOf(BudgetVerdict.NotNow.class);
    l.settle(first.reservation(), 150, T0 + 10); // it used less than it reserved
    assertThat(l.spentLastMinute(T0 + 10)).isEqualTo(150);
    assertThat(l.reserve(600, T0 + 10, 0, 0, 0)).isInstanceOf(BudgetVerdict.Reserved.class);
  }

  @Test
  void notNowSaysWhenTheWindowWillHaveRoom() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(1_000, Long.MAX_VALUE, Integer.MAX_VALUE));
    l.reserve(900, T0 + 200, 0, 0, 0);
    var later = (BudgetVerdict.NotNow) l.reserve(200, T0 + 30_000, 0, 0, 0);
    assertThat(later.limit()).isEqualTo(TenantLedger.PER_MINUTE);
    // the 900 were charged in the second starting at T0; they count a whole minute after that second's end
    assertThat(later.retryAfterMillis()).isEqualTo(61_000 - 30_000);
    assertThat(l.reserve(200, T0 + 60_999, 0, 0, 0)).isInstanceOf(BudgetVerdict.NotNow.class);
    assertThat(l.reserve(200, T0 + 61_000, 0, 0, 0)).isInstanceOf(BudgetVerdict.Reserved.class);
  }

  @Test
  void aRequestLargerThanTheWholeBudgetIsNeverTakenAndABudgetOfZeroTakesNothing() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(1_000, Long.MAX_VALUE, Integer.MAX_VALUE));
    assertThat(l.reserve(1_001, T0, 0, 0, 0)).isInstanceOf(BudgetVerdict.Never.class);
    TenantLedger zero = new TenantLedger("z", new TenantLimits(0, Long.MAX_VALUE, Integer.MAX_VALUE));
    assertThat(zero.reserve(1, T0, 0, 0, 0)).isInstanceOf(BudgetVerdict.Never.class);
  }

  @Test
  void concurrencyIsALimitToo() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(Long.MAX_VALUE, Long.MAX_VALUE, 2));
    var a = (BudgetVerdict.Reserved) l.reserve(1, T0, 0, 0, 0);
    l.reserve(1, T0, 0, 0, 0);
    assertThat(l.reserve(1, T0, 0, 0, 0)).isEqualTo(new BudgetVerdict.NotNow(TenantLedger.CONCURRENT, 0));
    l.settle(a.reservation(), 1, T0);
    assertThat(l.reserve(1, T0, 0, 0, 0)).isInstanceOf(BudgetVerdict.Reserved.class);
  }

  @Test
  void whatOtherReplicasSpentCountsAgainstTheSameBudget() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(1_000, 5_000, Integer.MAX_VALUE));
    assertThat(l.reserve(500, T0, 600, 0, 0)).isInstanceOf(BudgetVerdict.NotNow.class);
    assertThat(l.reserve(500, T0, 0, 4_600, 0)).extracting(v -> ((BudgetVerdict.NotNow) v).limit())
        .isEqualTo(TenantLedger.PER_DAY);
    assertThat(l.reserve(400, T0, 600, 0, 0)).isInstanceOf(BudgetVerdict.Reserved.class);
    TenantLedger two = new TenantLedger("b", new TenantLimits(Long.MAX_VALUE, Long.MAX_VALUE, 2));
    assertThat(two.reserve(1, T0, 0, 0, 2)).as("two in flight through the other replicas")
        .isEqualTo(new BudgetVerdict.NotNow(TenantLedger.CONCURRENT, 0));
  }

  @Test
  void aDemotedRequestRunsChargedAndTheDayWindowKeepsCounting() {
    TenantLedger l = new TenantLedger("a", new TenantLimits(1_000, 1_500, Integer.MAX_VALUE));
    l.reserve(1_000, T0, 0, 0, 0);
    l.overdraw(300, T0);
    assertThat(l.spentLastMinute(T0)).isEqualTo(1_300);
    assertThat(l.spentLastDay(T0 + 120_000)).as("out of the minute, still in the day").isEqualTo(1_300);
    assertThat(l.reserve(300, T0 + 120_000, 0, 0, 0)).extracting(v -> ((BudgetVerdict.NotNow) v).limit())
        .isEqualTo(TenantLedger.PER_DAY);
  }

  /**
   * The overshoot property: requests arriving at random moments, reserving and settling at random, never put more than
   * the budget in any 60 s window (what they reserved, counted when they were admitted).
   */
  @Test
  void noWindowOfSixtySecondsEverHoldsMoreThanTheBudget() {
    Random random = new Random(31);
    long budget = 10_000;
    TenantLedger l = new TenantLedger("a", new TenantLimits(budget, Long.MAX_VALUE, Integer.MAX_VALUE));
    Deque<long[]> admitted = new ArrayDeque<>(); // {time, tokens used}
    Deque<Reservation> open = new ArrayDeque<>();
    long now = T0;
    int taken = 0;
    for (int i = 0; i < 50_000; i++) {
      now += random.nextInt(40);
      if (!open.isEmpty() && random.nextInt(3) == 0) {
        Reservation r = open.poll();
        long used = random.nextLong(r.tokens() + 1); // at most what it reserved
        l.settle(r, used, now);
        for (long[] a : admitted) {
          if (a[0] == r.atMillis() && a[1] == r.tokens()) {
            a[1] = used;
            break;
          }
        }
      }
      long want = 1 + random.nextInt(2_000);
      if (l.reserve(want, now, 0, 0, 0) instanceof BudgetVerdict.Reserved r) {
        admitted.add(new long[] {now, want});
        open.add(r.reservation());
        taken++;
      }
      while (!admitted.isEmpty() && admitted.peek()[0] <= now - 60_000) {
        admitted.poll();
      }
      long inWindow = admitted.stream().mapToLong(a -> a[1]).sum();
      assertThat(inWindow).as("tokens admitted in the 60 s before %d", now).isLessThanOrEqualTo(budget);
    }
    assertThat(taken).as("the budget was the limit, not a wall").isGreaterThan(1_000);
  }
}
