package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class InFlightTrackerTest {
  long now;
  final InFlightTracker tracker = new InFlightTracker(() -> now);

  @Test
  void releaseIsIdempotentAndAMovedLeaseCountsWhereItRuns() {
    InFlightTracker.Lease lease = tracker.acquire("a:1", "m");
    lease.moveTo("b:1");
    assertThat(tracker.load("a:1").total()).isZero();
    assertThat(tracker.load("b:1").forModel("m")).isEqualTo(1);
    assertThat(lease.release()).isTrue();
    assertThat(lease.release()).isFalse();
    assertThat(tracker.load("b:1").total()).isZero();
  }

  /** Issue 13, item 2: a stream held open after its routing answer counted against its pod forever. */
  @Test
  void item2LeasesHeldPastTheLongestARequestMayTakeAreReleasedOnceAndOnlyThose() {
    InFlightTracker.Lease old = tracker.acquire("a:1", "m");
    now += Duration.ofMinutes(10).toNanos();
    InFlightTracker.Lease young = tracker.acquire("a:1", "m");
    now += Duration.ofMinutes(6).toNanos();

    assertThat(tracker.expireOlderThan(Duration.ofMinutes(15))).isEqualTo(1);
    assertThat(tracker.load("a:1").total()).isEqualTo(1);
    assertThat(tracker.expireOlderThan(Duration.ofMinutes(15))).as("already released").isZero();
    assertThat(old.release()).as("the stream's own end later releases nothing twice").isFalse();
    assertThat(tracker.load("a:1").total()).isEqualTo(1);
    young.release();
    assertThat(tracker.load("a:1").total()).isZero();
  }
}
