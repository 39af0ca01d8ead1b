package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.picker.kvcache.PodSnapshot;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Issue 51, item 2: the pods' blocks in pieces for a replica that starts, read back whole or refused whole. */
class BlockTransferTest {
  @Test
  void aLargePodSpansPiecesAndReadsBackWholeBesideAnEmptyOne() throws Exception {
    long[] ids = LongStream.range(0, 40_000).map(i -> i * 7).toArray();
    long[] keys = LongStream.range(0, 40_000).map(i -> ~i).toArray();
    List<byte[]> pieces = BlockTransfer.pieces(List.of(new PodSnapshot("10.0.0.1:8000", 99, 16, true, ids, keys),
        new PodSnapshot("10.0.0.2:8000", 3, 16, false, new long[0], new long[0])));
    assertThat(pieces).hasSizeGreaterThan(2).allSatisfy(p -> assertThat(p.length)
        .isLessThanOrEqualTo(BlockTransfer.PIECE_BYTES));
    List<PodSnapshot> read = BlockTransfer.read(pieces);
    assertThat(read).hasSize(2);
    PodSnapshot big = read.getFirst();
    assertThat(big.pod()).isEqualTo("10.0.0.1:8000");
    assertThat(big.lastSeq()).isEqualTo(99);
    assertThat(big.offloads()).isTrue();
    assertThat(big.engineIds()).isEqualTo(ids);
    assertThat(big.keys()).isEqualTo(keys);
    assertThat(read.get(1).blocks()).isZero();
  }

  @Test
  void garbageAndPiecesThatDisagreeAreRefusedNamingWhy() throws Exception {
    byte[] good = BlockTransfer.pieces(List.of(new PodSnapshot("p:1", 5, 16, false, new long[] {1, 2},
        new long[] {3, 4}))).getFirst();
    byte[] cut = Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> BlockTransfer.read(List.of(cut))).isInstanceOf(IOException.class)
        .hasMessageContaining("not one");
    byte[] version = good.clone();
    version[0] = 9;
    assertThatThrownBy(() -> BlockTransfer.read(List.of(version))).hasMessageContaining("unknown version");
    byte[] otherBatch = BlockTransfer.pieces(List.of(new PodSnapshot("p:1", 6, 16, false, new long[] {5},
        new long[] {6}))).getFirst();
    assertThatThrownBy(() -> BlockTransfer.read(List.of(good, otherBatch)))
        .hasMessageContaining("different batches");
    byte[] negativeCount = good.clone();
    int countAt = 1 + 2 + "p:1".length() + 8 + 4 + 1;
    negativeCount[countAt] = (byte) 0x80;
    assertThatThrownBy(() -> BlockTransfer.read(List.of(negativeCount))).hasMessageContaining("not one");
    assertThatThrownBy(() -> BlockTransfer.read(List.of(new byte[0]))).isInstanceOf(IOException.class);
  }
}
