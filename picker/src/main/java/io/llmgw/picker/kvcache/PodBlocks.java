package io.llmgw.picker.kvcache;

import com.carrotsearch.hppc.LongIntHashMap;
import com.carrotsearch.hppc.LongLongHashMap;

/**
 * One pod's KV-cache blocks as its events told them: the engine's block id (its hash, per medium) to the gateway's key,
 * and how many engine blocks carry each key (a block may sit on the GPU and in host memory at once). Guarded by its
 * own monitor: the event thread writes, request threads read.
 */
final class PodBlocks implements EngineBlockIndex.View {
  final LongLongHashMap engineToKey = new LongLongHashMap();
  final LongIntHashMap keys = new LongIntHashMap();
  int blockSize;
  /** Whether a batch arrived since the stream began or was last lost: until then the pod's index is not trusted. */
  boolean live;
  long distrustedUntilNanos;
  /** The KV cache's size in blocks as the pod reports it; 0 while unknown. */
  long capacity;
  /** Whether the pod's events named a medium other than the GPU (offloading), whose size it does not report. */
  boolean offloads;
  /** The last batch of the pod's stream applied whole; -1 while none. */
  long lastSeq = -1;
  /** Seeded from a peer's snapshot, and no stream has taken the batch it is as of yet. */
  boolean seeded;

  @Override
  public synchronized int blockSize() {
    return blockSize;
  }

  @Override
  public synchronized int matched(long[] wanted) {
    int n = 0;
    while (n < wanted.length && keys.containsKey(wanted[n])) {
      n++;
    }
    return n;
  }

  void clear() {
    engineToKey.clear();
    keys.clear();
  }

  void add(long engineId, long key) {
    int previous = engineToKey.indexOf(engineId);
    if (previous >= 0) {
      release(engineToKey.indexGet(previous));
    }
    engineToKey.put(engineId, key);
    keys.addTo(key, 1);
  }

  void remove(long engineId) {
    int at = engineToKey.indexOf(engineId);
    if (at >= 0) {
      release(engineToKey.indexGet(at));
      engineToKey.indexRemove(at);
    }
  }

  private void release(long key) {
    if (keys.addTo(key, -1) <= 0) {
      keys.remove(key);
    }
  }

  int size() {
    return engineToKey.size();
  }
}
