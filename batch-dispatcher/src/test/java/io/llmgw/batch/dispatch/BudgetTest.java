package io.llmgw.batch.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.llmgw.api.PoolLoad;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BudgetTest {
  @Test
  void theBudgetIsWhatTheBaselineAndTheLoadLeave() {
    // 4 pods of 64 slots, 100 running at the pods, 28 sent since their reports, 0 held in flow control
    Budget b = Budget.of(new PoolLoad("p", 4, 100, 0, 28, 0), 256, 0.05, 0.95);
    assertThat(b.fSys()).isCloseTo(0.5, within(1e-9));
    assertThat(b.fEpp()).isZero();
    assertThat(b.d()).isCloseTo(0.45, within(1e-9));
    assertThat(b.open()).isTrue();
    assertThat(b.allowance()).isEqualTo(115); // floor(256 x 0.45)
  }

  /** Issue 27: never more at once than the EPP takes before it sheds sheddable requests. */
  @Test
  void theAllowanceNeverExceedsTheEppsHeadroom() {
    assertThat(Budget.of(new PoolLoad("p", 4, 0, 0, 0, 0, 19), 256, 0.05, 0.95).allowance()).isEqualTo(19);
    assertThat(Budget.of(new PoolLoad("p", 4, 0, 0, 0, 0, 0), 256, 0.05, 0.95).allowance()).isZero();
    assertThat(Budget.of(new PoolLoad("p", 4, 100, 0, 28, 0, 500), 256, 0.05, 0.95).allowance()).as("D binds")
        .isEqualTo(115);
    assertThat(Budget.of(new PoolLoad("p", 4, 0, 0, 0, 0), 256, 0.05, 0.95).allowance())
        .as("an EPP that does not say: D alone").isEqualTo(243);
  }

  @Test
  void requestsHeldInFlowControlCountAgainstTheBudget() {
    Budget b = Budget.of(new PoolLoad("p", 4, 100, 0, 28, 64), 256, 0.05, 0.95);
    assertThat(b.fEpp()).isCloseTo(0.25, within(1e-9));
    assertThat(b.allowance()).isEqualTo(51); // floor(256 x 0.2)
  }

  @Test
  void theGateClosesWhenLoadPassesU() {
    assertThat(Budget.of(new PoolLoad("p", 1, 57, 0, 0, 0), 64, 0.05, 0.95).allowance()).isEqualTo(3); // 0.891 + 0.05
    Budget past = Budget.of(new PoolLoad("p", 1, 58, 0, 0, 0), 64, 0.05, 0.95); // 0.906 + 0.05 > 0.95
    assertThat(past.open()).isFalse();
    assertThat(past.allowance()).isZero();
    assertThat(Budget.of(new PoolLoad("p", 0, 0, 0, 0, 0), 0, 0.05, 0.95).open()).isFalse();
  }

  /**
   * Issue 52: a pool at zero has no capacity, but one line wakes it (the EPP holds it while the plan asks for a pod);
   * one, and only while nothing of it waits in the EPP or is on its way there.
   */
  @Test
  void aPoolAtZeroIsSentOneLineToWakeItAndNoMore() {
    Budget wake = Budget.of(new PoolLoad("p", 0, 0, 0, 0, 0, 0, true), 0, 0.05, 0.95);
    assertThat(wake.open()).isTrue();
    assertThat(wake.allowance()).isEqualTo(1);
    assertThat(wake.headroom()).isEqualTo(1);
    assertThat(Budget.of(new PoolLoad("p", 0, 0, 0, 0, 1, 0, true), 0, 0.05, 0.95).allowance())
        .as("a request already waits for the pod").isZero();
    assertThat(Budget.of(new PoolLoad("p", 0, 0, 0, 1, 0, 0, true), 0, 0.05, 0.95).allowance()).isZero();
    assertThat(Budget.of(new PoolLoad("p", 0, 0, 0, 0, 0, 0, true), 64, 0.05, 0.95).allowance())
        .as("a declared capacity is not there yet").isEqualTo(1);
    assertThat(Budget.of(new PoolLoad("p", 0, 0, 0, 0, 0, 0, false), 64, 0.05, 0.95).allowance())
        .as("a pool that may not scale to zero and has no pod: nothing").isZero();

    long[] now = {0};
    BudgetGate gate = new BudgetGate(0.05, Duration.ofSeconds(1), () -> now[0]);
    gate.onReading(wake, gate.readingStarts(), 1);
    assertThat(gate.available(100)).isEqualTo(1);
    gate.sent(1);
    assertThat(gate.available(100)).isZero();
    long asked = gate.readingStarts();
    gate.onReading(wake, asked, 2);
    assertThat(gate.available(100)).as("the line sent may still be on its way to the EPP").isZero();
    now[0] = 2_000_000_000L; // it reached the EPP long ago, and the EPP says nothing of it waits: it was answered
    gate.onReading(wake, gate.readingStarts(), 3);
    assertThat(gate.available(100)).as("not answered yet: it is still on its way").isZero();
    gate.answered();
    gate.onReading(wake, gate.readingStarts(), 4);
    assertThat(gate.available(100)).isEqualTo(1);
  }

  @Test
  void podsThatQueueHaveNothingToSpareWhateverMaxSysSays() {
    Budget b = Budget.of(new PoolLoad("p", 4, 10, 1, 0, 0), 256, 0.05, 0.95);
    assertThat(b.d()).isCloseTo(1 - 11 / 256.0 - 0.05, within(1e-9));
    assertThat(b.open()).isFalse();
    assertThat(b.allowance()).isZero();
  }

  @Test
  void aReadingIsSpentByWhatWasSentAfterItWasAskedFor() {
    BudgetGate gate = new BudgetGate(0.05);
    assertThat(gate.available(100)).isZero(); // no reading yet
    long asked = gate.readingStarts();
    gate.onReading(Budget.of(new PoolLoad("p", 1, 0, 0, 0, 0), 20, 0.05, 0.95), asked, 1);
    assertThat(gate.available(100)).isEqualTo(19);
    gate.sent(15);
    assertThat(gate.available(100)).isEqualTo(4);
    long asked2 = gate.readingStarts();
    gate.sent(4); // sent while reading 2 was on its way: the reading may not include them
    gate.onReading(Budget.of(new PoolLoad("p", 1, 15, 0, 0, 0), 20, 0.05, 0.95), asked2, 2);
    assertThat(gate.available(100)).isZero(); // floor(20 x 0.2) = 4, all spent by the 4 sent after asking
  }

  /**
   * Issue 27: lines sent a moment before a reading was asked for may not have reached the EPP yet; they count against
   * that reading's headroom, so that they are not sent again on top of themselves. Older ones are in the reading.
   */
  @Test
  void whatMayStillBeOnItsWayToTheEppCountsAgainstTheHeadroom() {
    long[] now = {0};
    BudgetGate gate = new BudgetGate(0.05, java.time.Duration.ofMillis(100), () -> now[0]);
    PoolLoad idle = new PoolLoad("p", 4, 0, 0, 0, 0, 19);
    gate.onReading(Budget.of(idle, 256, 0.05, 0.95), gate.readingStarts(), 1);
    assertThat(gate.available(100)).isEqualTo(19);
    gate.sent(19);
    now[0] = 50_000_000L; // 50 ms on: the EPP has not seen them yet and still says 19
    gate.onReading(Budget.of(idle, 256, 0.05, 0.95), gate.readingStarts(), 2);
    assertThat(gate.available(100)).as("the 19 may still be on their way").isZero();
    now[0] = 120_000_000L; // past the transit window: the reading counts them wherever they went
    gate.onReading(Budget.of(new PoolLoad("p", 4, 19, 0, 0, 0, 19), 256, 0.05, 0.95), gate.readingStarts(), 3);
    assertThat(gate.available(100)).isEqualTo(19);
    gate.sent(5);
    now[0] = 150_000_000L;
    gate.onReading(Budget.of(new PoolLoad("p", 4, 19, 0, 0, 0, 19), 256, 0.05, 0.95), gate.readingStarts(), 4);
    assertThat(gate.available(100)).as("5 of the 19 may be on their way").isEqualTo(14);
  }

  /**
   * Issue 53: while the proxy or the EPP is slow (a JVM still compiling, a busy machine), a line takes longer than any
   * fixed window to reach the EPP. Lines in flight that a reading counts nowhere are still on their way, however old.
   */
  @Test
  void linesInFlightThatTheReadingDoesNotCountAreStillOnTheirWay() {
    long[] now = {0};
    BudgetGate gate = new BudgetGate(0.05, java.time.Duration.ofMillis(100), () -> now[0]);
    PoolLoad idle = new PoolLoad("p", 4, 0, 0, 0, 0, 19);
    gate.onReading(Budget.of(idle, 256, 0.05, 0.95), gate.readingStarts(), 1);
    gate.sent(19);
    now[0] = 1_000_000_000L; // a second on, long past the window, and the EPP has seen none of them
    gate.onReading(Budget.of(idle, 256, 0.05, 0.95), gate.readingStarts(), 2);
    assertThat(gate.available(100)).isZero();
    now[0] = 1_050_000_000L; // 12 reached the EPP: 7 are still on their way
    gate.onReading(Budget.of(new PoolLoad("p", 4, 0, 0, 12, 0, 7), 256, 0.05, 0.95), gate.readingStarts(), 3);
    assertThat(gate.available(100)).as("the headroom of 7 is spent by the 7 unseen").isZero();
    gate.onReading(Budget.of(new PoolLoad("p", 4, 19, 0, 0, 0, 19), 256, 0.05, 0.95), gate.readingStarts(), 4);
    assertThat(gate.available(100)).as("all 19 at the pods").isEqualTo(19);
    for (int i = 0; i < 19; i++) {
      gate.answered();
    }
    gate.onReading(Budget.of(new PoolLoad("p", 4, 30, 0, 0, 0, 19), 256, 0.05, 0.95), gate.readingStarts(), 5);
    assertThat(gate.available(100)).as("others' requests are not ours: nothing unseen").isEqualTo(19);
    gate.sent(3);
    gate.onReading(Budget.of(new PoolLoad("p", 4, 0, 0, 0, 0, 256), 256, 0.05, 0.95), gate.readingStarts(), 6);
    assertThat(gate.available(1000)).as("an unseen line counts against D's allowance as well")
        .isEqualTo(243 - 3);
  }

  @Test
  void aThrottledGateWaitsForAReadingAskedForAfterTheRefusal() {
    BudgetGate gate = new BudgetGate(0.05);
    gate.onReading(Budget.of(new PoolLoad("p", 1, 0, 0, 0, 0), 20, 0.05, 0.95), gate.readingStarts(), 1);
    gate.throttled(2); // reading 2 was asked for before the 429 came back
    gate.onReading(Budget.of(new PoolLoad("p", 1, 0, 0, 0, 0), 20, 0.05, 0.95), gate.readingStarts(), 2);
    assertThat(gate.available(100)).isZero();
    assertThat(gate.throttledNow()).isTrue();
    gate.onReading(Budget.of(new PoolLoad("p", 1, 0, 0, 0, 0), 20, 0.05, 0.95), gate.readingStarts(), 3);
    assertThat(gate.available(100)).isEqualTo(19);
    gate.close(0.05);
    assertThat(gate.available(100)).isZero();
  }
}
