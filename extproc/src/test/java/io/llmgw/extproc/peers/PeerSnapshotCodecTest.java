package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerLoad;
import io.llmgw.extproc.state.PeerSpend.Departed;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.routed.RoutedBlocks;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A replica's counts on the wire: what is written reads back, and anything else is refused whole, naming why. */
class PeerSnapshotCodecTest {
  final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);

  @Test
  void countsPerEndpointAndModelTheUnseenSendTimesAndPrefillReadBack() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    tracker.acquire("10.0.0.1:8000", "base", 1_500);
    tracker.acquire("10.0.0.1:8000", "sql-lora", 200).firstToken();
    tracker.acquire("10.0.0.1:8000", "sql-lora", 300);
    tracker.acquire("10.0.0.2:8000", "base").release(); // idle endpoints are not sent
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec
        .decode(PeerSnapshotCodec.encode("replica-a", tracker.all(), Map.of(), List.of()));
    assertThat(s.sender()).isEqualTo("replica-a");
    assertThat(s.byEndpoint()).containsOnlyKeys("10.0.0.1:8000");
    PeerLoad l = s.byEndpoint().get("10.0.0.1:8000");
    assertThat(l.total()).isEqualTo(3);
    assertThat(l.byModel()).containsEntry("base", 1).containsEntry("sql-lora", 2);
    assertThat(l.unseenSentMillis()).containsExactly(1_000_000, 1_000_000, 1_000_000);
    assertThat(l.inPrefill()).isEqualTo(2);
    assertThat(l.prefillTokens()).isEqualTo(1_800);
  }

  @Test
  void whatEachTenantSpentReadsBackAndNegativeSpendingIsRefused() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    byte[] good = PeerSnapshotCodec.encode("a", tracker.all(), Map.of("team-a", new long[] {1_200, 50_000, 3}),
        List.of());
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(good);
    assertThat(s.spendByTenant()).containsOnlyKeys("team-a");
    assertThat(s.spendByTenant().get("team-a")).containsExactly(1_200, 50_000, 3);
    byte[] negative = good.clone();
    negative[good.length - 24] = (byte) 0x80; // the minute's tokens: before the day's, the count in flight, none routed
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(negative)).hasMessageContaining("tenant spending");
    byte[] negativeCount = good.clone();
    negativeCount[good.length - 8] = (byte) 0x80;
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(negativeCount)).hasMessageContaining("tenant's requests");
  }

  @Test
  void aGreetingCarriesTheReplicasItsSenderHoldsUnheardAndATickStaysReadableByTheVersionBefore() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    byte[] tick = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of(), List.of());
    assertThat(tick[0]).as("nothing held: version 4, which replicas before issue 51 read")
        .isEqualTo((byte) PeerSnapshotCodec.WITHOUT_DEPARTED);
    Departed gone = new Departed("replica-b", 1_500, Map.of("team-a", new long[] {300, 9_000, 0}));
    byte[] greeting = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of(), List.of(gone));
    assertThat(greeting[0]).isEqualTo((byte) PeerSnapshotCodec.WITHOUT_SERVED);
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(greeting);
    assertThat(s.departed()).singleElement().satisfies(d -> {
      assertThat(d.sender()).isEqualTo("replica-b");
      assertThat(d.ageMillis()).isEqualTo(1_500);
      assertThat(d.byTenant().get("team-a")).containsExactly(300, 9_000, 0);
    });
    assertThat(PeerSnapshotCodec.decode(tick).departed()).isEmpty();

    byte[] minuteOverDay = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of(),
        List.of(new Departed("b", 0, Map.of("t", new long[] {10, 5, 0}))));
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(minuteOverDay)).hasMessageContaining("minute over its day");
    byte[] negativeAge = greeting.clone();
    int ageAt = greeting.length - (2 + 2 + "team-a".length() + 16) - 8;
    negativeAge[ageAt] = (byte) 0x80;
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(negativeAge)).hasMessageContaining("negative age");
    byte[] cut = Arrays.copyOf(greeting, greeting.length - 3);
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(cut)).isInstanceOf(IOException.class);
  }

  @Test
  void aGreetingHoldsAtMostItsShareOfAMessageNewestFirst() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    List<Departed> many = new java.util.ArrayList<>();
    Map<String, long[]> tenants = new java.util.HashMap<>();
    for (int t = 0; t < 2_000; t++) {
      tenants.put("tenant-" + t, new long[] {1, 1, 0});
    }
    for (int i = 0; i < 300; i++) {
      many.add(new Departed("r" + i, 300 - i, tenants));
    }
    byte[] greeting = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of(), many);
    assertThat(greeting.length).isLessThanOrEqualTo(PeerLoadService.MAX_MESSAGE_BYTES);
    List<Departed> read = PeerSnapshotCodec.decode(greeting).departed();
    assertThat(read).isNotEmpty().hasSizeLessThan(300);
    assertThat(read.getFirst().sender()).as("the newest first").isEqualTo("r299");
  }

  @Test
  void aReplicaOfTheVersionBeforeTenantsIsStillHeardDuringARollingUpgrade() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    tracker.acquire("10.0.0.1:8000", "base", 10);
    byte[] v4 = PeerSnapshotCodec.encode("old", tracker.all(), Map.of(), List.of());
    byte[] v2 = Arrays.copyOf(v4, v4.length - 6); // no tenants' section, nothing routed
    v2[0] = PeerSnapshotCodec.WITHOUT_TENANTS;
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(v2);
    assertThat(s.byEndpoint().get("10.0.0.1:8000").prefillTokens()).isEqualTo(10);
    assertThat(s.spendByTenant()).isEmpty();
  }

  @Test
  void theBlocksARouterRoutedReadBackAndAReplicaBeforeThemIsStillHeard() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    List<RoutedBlocks> routed = List.of(new RoutedBlocks(64, "10.0.0.1:8000", new long[] {7, -8, Long.MAX_VALUE}),
        new RoutedBlocks(128, "10.0.0.2:8000", new long[] {9}));
    byte[] good = PeerSnapshotCodec.encode("a", tracker.all(), Map.of("team-a", new long[] {1, 2, 0}), routed);
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(good);
    assertThat(s.routed()).hasSize(2);
    assertThat(s.routed().get(0).blockBytes()).isEqualTo(64);
    assertThat(s.routed().get(0).address()).isEqualTo("10.0.0.1:8000");
    assertThat(s.routed().get(0).blocks()).containsExactly(7, -8, Long.MAX_VALUE);
    assertThat(s.routed().get(1).blocks()).containsExactly(9);
    assertThat(s.spendByTenant()).containsOnlyKeys("team-a");

    byte[] v3 = PeerSnapshotCodec.encode("old", tracker.all(), Map.of("team-a", new long[] {1, 2, 0}), List.of());
    v3 = Arrays.copyOf(v3, v3.length - 4);
    v3[0] = PeerSnapshotCodec.WITHOUT_ROUTED;
    PeerSnapshotCodec.Snapshot old = PeerSnapshotCodec.decode(v3);
    assertThat(old.routed()).isEmpty();
    assertThat(old.spendByTenant()).containsOnlyKeys("team-a");
  }

  @Test
  void routedBlocksBeyondTheCapsOrOfAnImpossibleSizeAreRefused() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    byte[] none = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of());
    int picksAt = none.length - 4;
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(routedTail(none, picksAt, 1_000_000, 64, 1)))
        .hasMessageContaining("routed prompts, more than 2048");
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(routedTail(none, picksAt, 1, 0, 1)))
        .hasMessageContaining("block size of 0 bytes");
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(routedTail(none, picksAt, 1, 64, 40_000)))
        .hasMessageContaining("routed blocks");
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(routedTail(none, picksAt, 1, 64, -1)))
        .hasMessageContaining("negative count of routed blocks");

    List<RoutedBlocks> tooMany = new java.util.ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      tooMany.add(new RoutedBlocks(64, "10.0.0.1:8000", new long[] {i}));
    }
    PeerSnapshotCodec.Snapshot s = PeerSnapshotCodec.decode(PeerSnapshotCodec.encode("a", tracker.all(), Map.of(),
        tooMany));
    assertThat(s.routed()).as("the writer keeps within what the reader takes").hasSize(2_048);
  }

  /** A message whose routed section claims the given counts and then ends. */
  private static byte[] routedTail(byte[] head, int at, int picks, int blockBytes, int blocks) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(head, 0, at);
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(picks);
    out.writeInt(blockBytes);
    out.writeUTF("10.0.0.1:8000");
    out.writeInt(blocks);
    return bytes.toByteArray();
  }

  @Test
  void aReplicaOfTheVersionBeforePrefillIsStillHeardDuringARollingUpgrade() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(PeerSnapshotCodec.WITHOUT_PREFILL);
    out.writeUTF("old-replica");
    out.writeShort(1);
    out.writeUTF("10.0.0.1:8000");
    out.writeInt(2);
    out.writeByte(1);
    out.writeUTF("base");
    out.writeInt(2);
    out.writeShort(1);
    out.writeLong(999_000);
    PeerLoad l = PeerSnapshotCodec.decode(bytes.toByteArray()).byEndpoint().get("10.0.0.1:8000");
    assertThat(l.total()).isEqualTo(2);
    assertThat(l.unseenSentMillis()).containsExactly(999_000);
    assertThat(l.prefillTokens()).isZero();
  }

  @Test
  void aNegativeOrAbsurdPrefillIsRefused() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    tracker.acquire("10.0.0.1:8000", "base", 10);
    byte[] good = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of());
    byte[] negative = good.clone();
    negative[good.length - 14] = (byte) 0x80; // the prefill tokens' sign bit: the last long before no tenants
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(negative)).hasMessageContaining("prefill tokens");
    byte[] absurd = good.clone();
    absurd[good.length - 14] = (byte) 0x7f; // 2^62 and more: no pod has that much waiting
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(absurd)).hasMessageContaining("prefill tokens");
    byte[] negativeCount = good.clone();
    negativeCount[good.length - 18] = (byte) 0x80; // the count in prefill, just before the tokens
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(negativeCount)).hasMessageContaining("count in prefill");
  }

  @Test
  void garbageIsRefusedWholeNamingWhatIsWrong() throws Exception {
    InFlightTracker tracker = new InFlightTracker(Ticker.system(), clock);
    tracker.acquire("10.0.0.1:8000", "base");
    byte[] good = PeerSnapshotCodec.encode("a", tracker.all(), Map.of(), List.of());
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(new byte[0])).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(Arrays.copyOf(good, good.length - 3)))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(Arrays.copyOf(good, good.length + 2)))
        .hasMessageContaining("after the last routed prompt");
    byte[] otherVersion = good.clone();
    otherVersion[0] = 9;
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(otherVersion)).hasMessageContaining("unknown version 9");
    ByteArrayOutputStream huge = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(huge);
    out.writeByte(PeerSnapshotCodec.VERSION);
    out.writeUTF("a");
    out.writeShort(60_000); // endpoints
    assertThatThrownBy(() -> PeerSnapshotCodec.decode(huge.toByteArray())).hasMessageContaining("more than 4096");
    Random random = new Random(29);
    for (int i = 0; i < 2_000; i++) {
      byte[] noise = new byte[random.nextInt(200)];
      random.nextBytes(noise);
      try {
        PeerSnapshotCodec.decode(noise);
      } catch (IOException expected) {
        // refused, as any garbage must be: never another exception, never an endless read
      }
    }
  }
}
