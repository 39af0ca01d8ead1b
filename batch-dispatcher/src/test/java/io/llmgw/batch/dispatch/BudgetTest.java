package io.llmgw.batch.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.llmgw.api.PoolLoad;
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
