package io.llmgw.sim.kvpublish;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Collects one engine step's KV-cache events and encodes them as vLLM's {@code KVEventBatch} in msgspec's array-like
 * msgpack form: {@code [ts, [event, ...]]}, each event an array led by its tag — {@code ["BlockStored", block_hashes,
 * parent_block_hash, token_ids, block_size, lora_id, medium, lora_name]}, {@code ["BlockRemoved", block_hashes,
 * medium]}, {@code ["AllBlocksCleared"]}. Consecutive blocks of one prompt become one BlockStored, consecutive
 * evictions one BlockRemoved. Confined to the engine's thread.
 */
final class KvBatchEncoder {
  static final String MEDIUM_GPU = "GPU";

  private sealed interface Event permits Stored, Removed, Cleared {}

  private static final class Stored implements Event {
    final long[] chain;
    final int from;
    int to;
    final int[] tokens;
    final int blockSize;
    final String adapter;

    Stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter) {
      this.chain = chain;
      this.from = from;
      this.to = to;
      this.tokens = tokens;
      this.blockSize = blockSize;
      this.adapter = adapter;
    }
  }

  private record Removed(List<Long> hashes) implements Event {}

  private record Cleared() implements Event {}

  private final List<Event> events = new ArrayList<>();
  /** vLLM's {@code lora_int_id}: adapters numbered from 1 in the order first seen. */
  private final Map<String, Integer> loraIds = new HashMap<>();

  void stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter) {
    if (!events.isEmpty() && events.getLast() instanceof Stored last && last.chain == chain && last.to == from) {
      last.to = to;
      return;
    }
    events.add(new Stored(chain, from, to, tokens, blockSize, adapter));
  }

  void removed(long hash) {
    if (!events.isEmpty() && events.getLast() instanceof Removed last) {
      last.hashes().add(hash);
      return;
    }
    List<Long> hashes = new ArrayList<>();
    hashes.add(hash);
    events.add(new Removed(hashes));
  }

  void cleared() {
    events.add(new Cleared());
  }

  boolean isEmpty() {
    return events.isEmpty();
  }

  /** The collected events as one batch stamped {@code ts} (seconds since the epoch); the collection starts over. */
  byte[] drain(double ts) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2).packDouble(ts).packArrayHeader(events.size());
      for (Event e : events) {
        switch (e) {
          case Stored s -> pack(p, s);
          case Removed r -> {
            p.packArrayHeader(3).packString("BlockRemoved").packArrayHeader(r.hashes().size());
            for (long h : r.hashes()) {
              p.packLong(h);
            }
            p.packString(MEDIUM_GPU);
          }
          case Cleared c -> p.packArrayHeader(1).packString("AllBlocksCleared");
        }
      }
      events.clear();
      return p.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("msgpack into memory cannot fail", e);
    }
  }

  private void pack(MessageBufferPacker p, Stored s) throws IOException {
    p.packArrayHeader(8).packString("BlockStored").packArrayHeader(s.to - s.from);
    for (int i = s.from; i < s.to; i++) {
      p.packLong(s.chain[i]);
    }
    if (s.from == 0) {
      p.packNil();
    } else {
      p.packLong(s.chain[s.from - 1]);
    }
    p.packArrayHeader((s.to - s.from) * s.blockSize);
    for (int i = s.from * s.blockSize; i < s.to * s.blockSize; i++) {
      p.packInt(s.tokens[i]);
    }
    p.packInt(s.blockSize);
    if (s.adapter == null) {
      p.packNil().packString(MEDIUM_GPU).packNil();
    } else {
      p.packInt(loraIds.computeIfAbsent(s.adapter, a -> loraIds.size() + 1)).packString(MEDIUM_GPU)
          .packString(s.adapter);
    }
  }
}
