package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.flow.core.ServedTokens;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerSpend.Departed;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.routed.RoutedBlocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 5: what flows were charged rides on a tick as version 6, for the watchers that asked for it; it reads
 * back, and garbage is refused whole, naming why.
 */
class ServedCodecTest {
  final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
  final List<ServedTokens> charged = List.of(new ServedTokens("default/sim-pool", 0, "heavy", 2_016.0),
      new ServedTokens("default/a,default/b", -1, "light", -12.5));

  private byte[] tick() {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    tracker.acquire("10.0.0.1:8000", "base", 700);
    return PeerSnapshotCodec.encode("a", tracker.all(), Map.of("team-a", new long[] {10, 20, 1}),
        List.of(new RoutedBlocks(64, "10.0.0.1:8000", new long[] {7, 8})));
  }

  @Test
  void theChargesReadBackBesideEverythingTheTickSaid() throws Exception {
    byte[] tick = tick();
    byte[] withServed = ServedCodec.appendTo(tick, charged);
    assertThat(withServed[0]).isEqualTo((byte) PeerSnapshotCodec.VERSION);
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(withServed);
    assertThat(s.served()).isEqualTo(charged);
    PeerSnapshotCodec.Snapshot plain = PeerSnapshotCodec.decode(tick);
    assertThat(plain.served()).isEmpty();
    assertThat(s.byEndpoint().get("10.0.0.1:8000").prefillTokens()).isEqualTo(700);
    assertThat(s.spendByTenant().get("team-a")).containsExactly(10, 20, 1);
    assertThat(s.routed()).singleElement().satisfies(r -> assertThat(r.blocks()).containsExactly(7, 8));
    assertThat(s.departed()).isEmpty();
  }

  @Test
  void nothingChargedLeavesTheTickAsItIsReadableByReplicasBeforeIt() {
    byte[] tick = tick();
    assertThat(ServedCodec.appendTo(tick, List.of())).isSameAs(tick);
    assertThat(tick[0]).isEqualTo((byte) PeerSnapshotCodec.WITHOUT_DEPARTED);
  }

  @Test
  void aGreetingIsNotATickToAppendTo() {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    byte[] greeting = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of(),
        List.of(new Departed("b", 1, Map.of("t", new long[] {1, 2, 0}))));
    assertThatThrownBy(() -> ServedCodec.appendTo(greeting, charged)).hasMessageContaining("not a tick");
  }

  @Test
  void moreFlowsThanAMessageHoldsAreLeftOutNotSentBroken() throws Exception {
    List<ServedTokens> many = new ArrayList<>();
    for (int i = 0; i < ServedCodec.MAX_FLOWS + 10; i++) {
      many.add(new ServedTokens("default/sim-pool", 0, "flow-" + i, 1));
    }
    assertThat(ServedCodec.fitting(many)).isEqualTo(ServedCodec.MAX_FLOWS);
    assertThatThrownBy(() -> ServedCodec.appendTo(tick(), many)).hasMessageContaining("more than a message carries");
    List<ServedTokens> fit = many.subList(0, ServedCodec.fitting(many));
    assertThat(PeerSnapshotCodec.decode(ServedCodec.appendTo(tick(), fit)).served()).isEqualTo(fit);
    List<ServedTokens> longNames = new ArrayList<>();
    String name = "f".repeat(600); // clipped to 512 characters on the wire
    for (int i = 0; i < 200; i++) {
      longNames.add(new ServedTokens(name, 0, name, 1));
    }
    int n = ServedCodec.fitting(longNames);
    assertThat(n).as("within an eighth of the largest message").isLessThan(200).isPositive();
    List<ServedTokens> read = PeerSnapshotCodec.decode(ServedCodec.appendTo(tick(), longNames.subList(0, n))).served();
    assertThat(read).hasSize(n);
    assertThat(read.getFirst().flowId()).hasSize(512);
  }

  @Test
  void garbageChargesAreRefusedWhole() {
    byte[] good = ServedCodec.appendTo(tick(), List.of(new ServedTokens("p", 0, "f", 5)));
    int tokensAt = good.length - 8;
    for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, 1e13, -1e13}) {
      byte[] m = good.clone();
      ByteBuffer.wrap(m, tokensAt, 8).putDouble(bad);
      assertThatThrownBy(() -> PeerSnapshotCodec.decode(m)).as("%s tokens", bad).hasMessageContaining("tokens");
    }
    byte[] tooMany = good.clone();
    int countAt = good.length - (2 + 1 + 4 + 2 + 1 + 8) - 2;
    ByteBuffer.wrap(tooMany, countAt, 2).putShort((short) (ServedCodec.MAX_FLOWS + 1));
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(tooMany)).hasMessageContaining("more than 1024");
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(trailing)).hasMessageContaining("after the last flow charged");
    byte[] cut = Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(cut)).isInstanceOf(IOException.class);
  }
}
