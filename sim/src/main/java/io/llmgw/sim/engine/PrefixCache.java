package io.llmgw.sim.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * vLLM's automatic prefix caching in miniature: computed KV blocks stay cached by the chained hash of their content
 * (least recently used out first), so a prompt that shares leading blocks with an earlier one skips their prefill.
 */
final class PrefixCache {
  private final LinkedHashMap<Long, Boolean> blocks;

  PrefixCache(int capacityBlocks) {
    this.blocks = new LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > capacityBlocks;
      }
    };
  }

  /** Counts the leading blocks already cached, then caches all of them (they are computed now). */
  int matchAndInsert(long[] chain) {
    int hits = 0;
    while (hits < chain.length && blocks.get(chain[hits]) != null) {
      hits++;
    }
    for (long h : chain) {
      blocks.put(h, Boolean.TRUE);
    }
    return hits;
  }
}
