package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class InFlightTrackerTest {
  long now;
  final InFlightTracker tracker = new InFlightTracker(() -> now, java.time.Clock.systemUTC());

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

  /**
   * Issue 13, item 10: what the pod's report cannot show yet is what this EPP sent from the moment the report was asked
   * for and that is still in flight; everything older is in the pod's own counts (with other replicas' requests).
   */
  @Test
  void item10SentSinceCountsRequestsSentFromTheReportOnThatAreStillInFlight() {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    InFlightTracker t = new InFlightTracker(clock, clock);
    InFlightTracker.Lease before = t.acquire("a:1", "m");
    clock.advance(Duration.ofMillis(10));
    Instant report = clock.instant();
    InFlightTracker.Lease atReport = t.acquire("a:1", "m");
    clock.advance(Duration.ofMillis(10));
    InFlightTracker.Lease after = t.acquire("a:1", "m");
    InFlightTracker.Lease ended = t.acquire("a:1", "m");
    ended.release();

    EndpointLoad load = t.load("a:1");
    assertThat(load.total()).isEqualTo(3);
    assertThat(load.sentSince(report)).as("sent at or after the report, still in flight").isEqualTo(2);
    after.release();
    assertThat(load.sentSince(report)).isEqualTo(1);
    assertThat(load.sentSince(clock.instant().plusMillis(1))).as("a newer report shows them all").isZero();
    assertThat(load.sentSince(report)).as("an older report read later never resurrects what a newer one showed")
        .isZero();
    before.release();
    atReport.release();
    assertThat(load.total()).isZero();
    assertThat(load.sentSince(report)).isZero();

    InFlightTracker.Lease moved = t.acquire("a:1", "m");
    moved.moveTo("b:1");
    assertThat(t.load("b:1").sentSince(report)).as("a fallback counts where it runs").isEqualTo(1);
    assertThat(load.sentSince(Instant.EPOCH)).isZero();
    moved.release();
    assertThat(t.load("b:1").sentSince(Instant.EPOCH)).isZero();
  }
}
