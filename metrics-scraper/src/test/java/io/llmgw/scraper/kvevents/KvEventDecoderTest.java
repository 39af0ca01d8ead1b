package io.llmgw.scraper.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Issue 29: vLLM's KV-event batches decode in both of msgspec's encodings; anything else is refused with a reason. */
class KvEventDecoderTest {
  @Test
  void theArrayLikeFormDecodesFieldByField() throws Exception {
    KvEventBatch b = KvEventDecoder.decode(KvBatches.stored(new long[] {5, -6}, 4L, new int[] {1, 2, 3, 4}, 2));
    assertThat(b.ts()).isEqualTo(1.5);
    KvEvent.BlockStored s = (KvEvent.BlockStored) b.events().getFirst();
    assertThat(s.blockHashes()).containsExactly(5, -6);
    assertThat(s.hasParent()).isTrue();
    assertThat(s.parentBlockHash()).isEqualTo(4);
    assertThat(s.tokenIds()).containsExactly(1, 2, 3, 4);
    assertThat(s.blockSize()).isEqualTo(2);
    assertThat(s.medium()).isEqualTo("GPU");
    assertThat(KvEventDecoder.decode(KvBatches.cleared()).events()).containsExactly(new KvEvent.AllBlocksCleared());
  }

  @Test
  void theMapFormWithUnsignedAndBytesHashesAndNewerFieldsDecodes() throws Exception {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(3).packString("ts").packDouble(3.0).packString("events").packArrayHeader(2);
      p.packMapHeader(7).packString("type").packString("BlockStored").packString("block_hashes").packArrayHeader(2)
          .packBigInteger(new BigInteger("18446744073709551615")).packBinaryHeader(3).writePayload(new byte[] {1, 2, 3})
          .packString("parent_block_hash").packNil().packString("token_ids").packArrayHeader(2).packInt(7).packInt(8)
          .packString("block_size").packInt(1).packString("lora_name").packString("sql-lora")
          .packString("group_idx").packInt(0);
      p.packMapHeader(3).packString("type").packString("BlockRemoved").packString("block_hashes").packArrayHeader(1)
          .packLong(9).packString("medium").packString("CPU");
      p.packString("data_parallel_rank").packInt(1);
      KvEventBatch b = KvEventDecoder.decode(p.toByteArray());
      assertThat(b.dataParallelRank()).isEqualTo(1);
      KvEvent.BlockStored s = (KvEvent.BlockStored) b.events().get(0);
      assertThat(s.blockHashes()[0]).as("uint64 max: the same 64 bits").isEqualTo(-1L);
      assertThat(s.hasParent()).isFalse();
      assertThat(s.loraName()).isEqualTo("sql-lora");
      assertThat(b.events().get(1)).isInstanceOf(KvEvent.BlockRemoved.class);
    }
  }

  @Test
  void garbageIsRefusedWithAReasonAndNeverThrowsAnythingElse() throws IOException {
    assertThatThrownBy(() -> KvEventDecoder.decode(new byte[] {(byte) 0xc1}))
        .isInstanceOf(KvEventFormatException.class);
    assertThatThrownBy(() -> KvEventDecoder.decode(KvBatches.stored(new long[] {1}, null, new int[] {1, 2, 3}, 2)))
        .hasMessageContaining("1 blocks of 2 tokens but 3 token ids");
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(1).packArrayHeader(1).packArrayHeader(1).packString("BlockMoved");
      assertThatThrownBy(() -> KvEventDecoder.decode(p.toByteArray())).hasMessageContaining("unknown tag 'BlockMoved'");
    }
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(1).packArrayHeader(Integer.MAX_VALUE);
      assertThatThrownBy(() -> KvEventDecoder.decode(p.toByteArray())).hasMessageContaining("over");
    }
    Random random = new Random(29);
    byte[] valid = KvBatches.stored(new long[] {1, 2}, null, new int[] {1, 2, 3, 4}, 2);
    for (int i = 0; i < 2_000; i++) {
      byte[] mangled = valid.clone();
      mangled[random.nextInt(mangled.length)] = (byte) random.nextInt(256);
      byte[] cut = java.util.Arrays.copyOf(valid, random.nextInt(valid.length));
      for (byte[] bad : new byte[][] {mangled, cut}) {
        try {
          KvEventDecoder.decode(bad);
        } catch (KvEventFormatException expected) {
          // refused with a reason: what must happen to garbage that is not valid by chance
        }
      }
    }
  }
}
