package io.llmgw.extproc.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.InFlight;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A pod's load across replicas: this one's live counts plus each fresh peer's last word, and nothing stale. */
class PeerLoadsTest {
  final AtomicLong now = new AtomicLong();
  final PeerLoads loads = new PeerLoads(now::get, Duration.ofMillis(500));

  @Test
  void sendsAtOrAfterAReportAreCountedWhateverOrderTheyCameInAndHoweverManyShareATime() {
    PeerLoad l = new PeerLoad(4, Map.of(), new long[] {7, 5, 5, 5});
    assertThat(l.sentSince(1)).isEqualTo(4);
    assertThat(l.sentSince(5)).isEqualTo(4);
    assertThat(l.sentSince(6)).isEqualTo(1);
    assertThat(l.sentSince(7)).isEqualTo(1);
    assertThat(l.sentSince(8)).isZero();
    assertThat(new PeerLoad(0, Map.of(), new long[0]).sentSince(0)).isZero();
  }

  @Test
  void freshPeersAddTheirCountsAndTheirSendsNewerThanTheReport() {
    InFlight own = new InFlightTracker(now::get, java.time.Clock.systemUTC()).load("pod-a");
    assertThat(loads.combine("pod-a", own)).as("no peers: the replica's own counter").isSameAs(own);
    loads.update("b", Map.of("pod-a", new PeerLoad(3, Map.of("sql-lora", 2, "base", 1), new long[] {100, 200, 300})));
    loads.update("c", Map.of("pod-a", new PeerLoad(1, Map.of("base", 1), new long[] {250})));
    InFlight shared = loads.combine("pod-a", own);
    assertThat(shared.total()).isEqualTo(4);
    assertThat(shared.forModel("base")).isEqualTo(2);
    assertThat(shared.forModel("sql-lora")).isEqualTo(2);
    assertThat(shared.sentSince(Instant.ofEpochMilli(200))).as("sent at or after the report: 200, 300, 250")
        .isEqualTo(3);
    assertThat(loads.combine("pod-z", own)).as("no peer has requests there").isSameAs(own);

    now.addAndGet(Duration.ofMillis(501).toNanos());
    assertThat(loads.combine("pod-a", own).total()).as("stale snapshots do not count").isZero();
    assertThat(loads.freshPeers()).isZero();
    loads.update("b", Map.of("pod-a", new PeerLoad(1, Map.of(), new long[0])));
    assertThat(loads.combine("pod-a", own).total()).isEqualTo(1);
    loads.forget("b");
    assertThat(loads.combine("pod-a", own)).isSameAs(own);
  }
}
