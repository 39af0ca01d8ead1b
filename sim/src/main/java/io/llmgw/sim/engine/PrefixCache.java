package io.llmgw.sim.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * vLLM's automatic prefix caching in miniature: computed KV blocks stay cached by the chained hash of their content
 * (least recently used out first), so a prompt that shares leading blocks with an earlier one skips their prefill.
 * What it stores and evicts goes to a {@link KvEventSink}, as vLLM's KV-cache events report it.
 */
final class PrefixCache {
  private final LinkedHashMap<Long, Boolean> blocks;
  private final KvEventSink events;

  PrefixCache(int capacityBlocks, KvEventSink events) {
    this.events = events;
    this.blocks = new LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        if (size() > capacityBlocks) {
          events.removed(eldest.getKey());
          return true;
        }
        return false;
      }
    };
  }

  /**
   * Counts the leading blocks already cached, then caches all of them (they are computed now), reporting the new ones.
   * {@code tokens} are the prompt's token ids when known (empty otherwise: nothing is reported).
   */
  int matchAndInsert(long[] chain, int[] tokens, int blockSize, String adapter) {
    int hits = 0;
    while (hits < chain.length && blocks.get(chain[hits]) != null) {
      hits++;
    }
    for (int i = 0; i < hits; i++) {
      blocks.put(chain[i], Boolean.TRUE);
    }
    int reportable = Math.min(chain.length, tokens.length / blockSize);
    for (int i = hits; i < chain.length; i++) {
      // vLLM evicts a cached block to make room before it fills and stores another: the removal is reported first,
      // so that the cache it reports never holds more blocks than it has
      blocks.put(chain[i], Boolean.TRUE);
      if (i < reportable) {
        events.stored(chain, i, i + 1, tokens, blockSize, adapter);
      }
    }
    return hits;
  }

  /** vLLM's {@code reset_prefix_cache}: every block goes. */
  void clear() {
    blocks.clear();
    events.cleared();
  }
}
