package io.llmgw.picker.kvcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Issue 29, item 1: the index holds what the engines' events say, keyed by token ids, and drops what it cannot trust. */
class EngineBlockIndexTest {
  static final String POD = "10.0.0.1:8000";
  final AtomicLong nanos = new AtomicLong();
  final EngineBlockIndex index = new EngineBlockIndex(100, 250, 30_000_000_000L, nanos::get);

  /** A prompt of {@code blocks} blocks of 4 tokens. */
  static int[] prompt(int seed, int blocks) {
    return IntStream.range(0, blocks * 4).map(i -> seed * 1000 + i).toArray();
  }

  static int[] slice(int[] tokens, int fromBlock, int toBlock) {
    return Arrays.copyOfRange(tokens, fromBlock * 4, toBlock * 4);
  }

  long[] keys(int[] tokens, String adapter) {
    return BlockKeys.chain(tokens, 4, adapter, 1000);
  }

  @Test
  void storedBlocksChainedInSeveralEventsMatchTheRequestsKeysWhateverTheEnginesHashes() {
    int[] p = prompt(1, 5);
    assertThat(index.view(POD)).as("no events yet").isNull();
    index.stored(POD, new long[] {901, 902}, false, 0, slice(p, 0, 2), 4, null, "GPU");
    index.stored(POD, new long[] {903, 904, 905}, true, 902, slice(p, 2, 5), 4, null, "GPU");
    EngineBlockIndex.View v = index.view(POD);
    assertThat(v.blockSize()).isEqualTo(4);
    assertThat(v.matched(keys(p, null))).isEqualTo(5);
    int[] diverging = p.clone();
    diverging[13] = -1; // block 3 differs
    assertThat(v.matched(keys(diverging, null))).isEqualTo(3);
    assertThat(v.matched(keys(p, "sql-lora"))).as("another adapter's cache").isZero();
    assertThat(index.blocks()).isEqualTo(5);
  }

  @Test
  void removalsClearsAndAPodLeavingDropBlocks() {
    int[] p = prompt(2, 3);
    index.stored(POD, new long[] {1, 2, 3}, false, 0, p, 4, null, null);
    index.removed(POD, new long[] {2}, null);
    assertThat(index.view(POD).matched(keys(p, null))).as("the chain breaks at the removed block").isEqualTo(1);
    index.cleared(POD);
    assertThat(index.view(POD).matched(keys(p, null))).isZero();
    assertThat(index.view(POD)).as("a cleared pod is known to be empty, not unknown").isNotNull();
    index.stored(POD, new long[] {1}, false, 0, slice(p, 0, 1), 4, null, null);
    index.retainOnly(Set.of("10.0.0.2:8000"));
    assertThat(index.view(POD)).isNull();
    assertThat(index.blocks()).isZero();
  }

  @Test
  void aBlockHeldOnTwoMediaStaysUntilBothCopiesGo() {
    int[] p = prompt(3, 1);
    index.stored(POD, new long[] {7}, false, 0, p, 4, null, "GPU");
    index.stored(POD, new long[] {7}, false, 0, p, 4, null, "CPU");
    index.removed(POD, new long[] {7}, "GPU");
    assertThat(index.view(POD).matched(keys(p, null))).as("still in host memory").isEqualTo(1);
    index.removed(POD, new long[] {7}, "CPU");
    assertThat(index.view(POD).matched(keys(p, null))).isZero();
  }

  @Test
  void blocksWhoseParentWasNeverSeenAreSkippedAndCounted() {
    int[] p = prompt(4, 2);
    index.stored(POD, new long[] {12}, true, 11, slice(p, 1, 2), 4, null, null);
    assertThat(index.orphanBlocks()).isEqualTo(1);
    assertThat(index.blocks()).isZero();
  }

  /** Issue 51, item 2: a replica that starts takes a peer's blocks of each pod, and the batch they are as of. */
  @Test
  void aPeersSnapshotSeedsAnIndexThatHasNotHeardThePodAndGoesOnFromItsBatch() {
    int[] p = prompt(3, 5);
    index.stored(POD, new long[] {901, 902}, false, 0, slice(p, 0, 2), 4, null, "GPU");
    index.applied(POD, 41);
    index.stored(POD, new long[] {903, 904, 905}, true, 902, slice(p, 2, 5), 4, null, "CPU");
    index.applied(POD, 42);
    index.stored("10.0.0.2:8000", new long[] {1}, false, 0, slice(p, 0, 1), 4, null, null); // no batch applied whole
    index.lost("10.0.0.3:8000");
    assertThat(index.export(1_000)).as("only pods trusted and with a batch applied whole").singleElement()
        .satisfies(s -> {
          assertThat(s.pod()).isEqualTo(POD);
          assertThat(s.lastSeq()).isEqualTo(42);
          assertThat(s.blocks()).isEqualTo(5);
          assertThat(s.offloads()).isTrue();
        });
    assertThat(index.export(4)).as("past the bound, a pod is left out whole").isEmpty();

    EngineBlockIndex fresh = new EngineBlockIndex(100, 250, 30_000_000_000L, nanos::get);
    PodSnapshot snapshot = index.export(1_000).getFirst();
    assertThat(fresh.takeSeededSeq(POD)).isEqualTo(-1);
    assertThat(fresh.seed(snapshot)).isTrue();
    assertThat(fresh.takeSeededSeq(POD)).isEqualTo(42);
    assertThat(fresh.takeSeededSeq(POD)).as("once: a later stream of the pod starts afresh").isEqualTo(-1);
    assertThat(index.takeSeededSeq(POD)).as("a pod followed, not seeded").isEqualTo(-1);
    assertThat(fresh.view(POD).matched(keys(p, null))).isEqualTo(5);
    assertThat(fresh.blocks()).isEqualTo(5);
    assertThat(fresh.seed(snapshot)).as("a pod already followed is not seeded again").isFalse();
    // the next batch goes on from the seeded chain: a block whose parent only the snapshot knew
    int[] longer = prompt(3, 6);
    fresh.stored(POD, new long[] {906}, true, 905, slice(longer, 5, 6), 4, null, "CPU");
    assertThat(fresh.view(POD).matched(keys(longer, null))).isEqualTo(6);
    fresh.removed(POD, new long[] {901}, "GPU");
    assertThat(fresh.view(POD).matched(keys(longer, null))).as("the engine's ids travelled too").isZero();

    EngineBlockIndex small = new EngineBlockIndex(4, 250, 30_000_000_000L, nanos::get);
    assertThat(small.seed(snapshot)).as("past the per-pod cap: not taken").isFalse();
    assertThat(small.blocks()).isZero();
  }

  @Test
  void aLossDropsThePodAndDistrustsItWhileItRelearns() {
    int[] p = prompt(5, 2);
    index.stored(POD, new long[] {1, 2}, false, 0, p, 4, null, null);
    index.lost(POD);
    assertThat(index.blocks()).isZero();
    index.stored(POD, new long[] {1, 2}, false, 0, p, 4, null, null);
    assertThat(index.view(POD)).as("relearning: the approximate index serves it").isNull();
    nanos.addAndGet(30_000_000_001L);
    assertThat(index.view(POD).matched(keys(p, null))).isEqualTo(2);
  }

  @Test
  void aPodPastTheCapIsDroppedAndSaysSo() {
    int[] p = prompt(6, 101);
    long[] hashes = hashes(101);
    assertThat(index.stored(POD, hashes, false, 0, p, 4, null, null)).isEqualTo(EngineBlockIndex.Loss.OVER_CAP);
    assertThat(index.blocks()).isZero();
    assertThat(index.view(POD)).isNull();
  }

  @Test
  void thePodThatWouldPassTheCapOverAllPodsIsDroppedAndTheTotalStaysTrue() {
    int[] p = prompt(7, 90);
    index.stored("a:1", hashes(90), false, 0, p, 4, null, null);
    index.stored("b:1", hashes(90), false, 0, p, 4, null, null);
    assertThat(index.blocks()).isEqualTo(180);
    assertThat(index.stored("c:1", hashes(90), false, 0, p, 4, null, null)).isEqualTo(EngineBlockIndex.Loss.OVER_CAP);
    assertThat(index.blocks()).as("250 in all at most").isEqualTo(180);
    index.forget("a:1");
    index.removed("b:1", new long[] {1, 2}, null);
    assertThat(index.blocks()).isEqualTo(88);
  }

  static long[] hashes(int n) {
    return java.util.stream.LongStream.rangeClosed(1, n).toArray();
  }

  /** Issue 47: a pod claiming more GPU blocks than the KV cache it reports is not believed; evictions keep it within. */
  @Test
  void aPodClaimingMoreBlocksThanItsCacheHoldsIsNotBelieved() {
    index.capacity(POD, 4);
    int[] p = prompt(5, 6);
    assertThat(index.stored(POD, new long[] {1, 2, 3, 4}, false, 0, slice(p, 0, 4), 4, null, "GPU")).isNull();
    index.removed(POD, new long[] {1}, "GPU");
    assertThat(index.stored(POD, new long[] {5}, true, 4, slice(p, 4, 5), 4, null, "GPU")).as("evicted one first")
        .isNull();
    assertThat(index.stored(POD, new long[] {6}, true, 5, slice(p, 5, 6), 4, null, "GPU"))
        .isEqualTo(EngineBlockIndex.Loss.OVER_CAPACITY);
    assertThat(index.view(POD)).as("distrusted while it relearns").isNull();
    assertThat(index.blocks()).isZero();

    String offloading = "10.0.0.3:8000"; // its host-memory tier's size is not reported: only the caps hold it
    index.capacity(offloading, 1);
    index.stored(offloading, new long[] {1}, false, 0, slice(p, 0, 1), 4, null, "CPU");
    assertThat(index.stored(offloading, new long[] {2}, true, 1, slice(p, 1, 2), 4, null, "CPU")).isNull();
  }
}
