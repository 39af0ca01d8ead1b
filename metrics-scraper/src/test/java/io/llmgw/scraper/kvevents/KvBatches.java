package io.llmgw.scraper.kvevents;

import java.io.IOException;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** KV-event batches as vLLM encodes them (msgspec, array-like), written by hand for tests. */
final class KvBatches {
  private KvBatches() {}

  /** One batch holding one BlockStored of {@code tokens.length / blockSize} blocks. */
  static byte[] stored(long[] hashes, Long parent, int[] tokens, int blockSize) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(1.5).packArrayHeader(1);
      p.packArrayHeader(7).packString("BlockStored").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      if (parent == null) {
        p.packNil();
      } else {
        p.packLong(parent);
      }
      p.packArrayHeader(tokens.length);
      for (int t : tokens) {
        p.packInt(t);
      }
      p.packInt(blockSize).packNil().packString("GPU");
      return p.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] cleared() {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(2.5).packArrayHeader(1).packArrayHeader(1).packString("AllBlocksCleared");
      return p.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
