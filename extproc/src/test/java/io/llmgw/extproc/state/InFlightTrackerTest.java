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

  /**
   * Issue 29, item 3: a request's uncached prompt tokens count as prefill work from its pick until its first token,
   * once, whichever comes first of the first token, its end or its expiry; a fallback carries what is left of it.
   */
  @Test
  void prefillTokensCountFromThePickUntilTheFirstTokenOnceAndMoveWithAFallback() {
    EndpointLoad a = tracker.load("a:1");
    InFlightTracker.Lease streamed = tracker.acquire("a:1", "m", 1_000);
    InFlightTracker.Lease ended = tracker.acquire("a:1", "m", 300);
    assertThat(a.prefillTokens()).isEqualTo(1_300);
    assertThat(a.inPrefill()).isEqualTo(2);
    streamed.firstToken();
    streamed.firstToken();
    assertThat(a.prefillTokens()).as("once, however often the bytes come").isEqualTo(300);
    assertThat(a.inPrefill()).isEqualTo(1);
    assertThat(a.total()).as("still in flight: decoding").isEqualTo(2);
    ended.release();
    ended.firstToken();
    assertThat(a.prefillTokens()).as("ended before any token: its reservation goes with it").isZero();
    streamed.release();
    assertThat(a.prefillTokens()).isZero();
    assertThat(a.inPrefill()).isZero();

    InFlightTracker.Lease fellBack = tracker.acquire("a:1", "m", 500);
    fellBack.moveTo("b:1");
    assertThat(a.prefillTokens()).isZero();
    assertThat(tracker.load("b:1").prefillTokens()).as("it prefills where it runs").isEqualTo(500);
    fellBack.firstToken();
    InFlightTracker.Lease prefilled = tracker.acquire("a:1", "m", 700);
    prefilled.firstToken();
    prefilled.moveTo("b:1");
    assertThat(tracker.load("b:1").prefillTokens()).as("a prefilled request stays prefilled where it moves").isZero();
    assertThat(tracker.load("b:1").inPrefill()).isZero();
    prefilled.release();
    fellBack.release();

    InFlightTracker.Lease stuck = tracker.acquire("a:1", "m", 900);
    now += Duration.ofMinutes(10).toNanos();
    assertThat(tracker.expireOlderThan(Duration.ofMinutes(5))).isEqualTo(1);
    assertThat(a.prefillTokens()).as("an expired lease's reservation goes too").isZero();
    assertThat(stuck.release()).isFalse();
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
