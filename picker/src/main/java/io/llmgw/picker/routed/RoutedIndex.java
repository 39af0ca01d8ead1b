package io.llmgw.picker.scorers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Per-endpoint LRU of prompt block hashes the gateway routed there; bounded per endpoint. */
final class PrefixCacheIndex {
  private final int capacityPerEndpoint;
  private final Map<String, Lru> byEndpoint = new ConcurrentHashMap<>();

  PrefixCacheIndex(int capacityPerEndpoint) {
    this.capacityPerEndpoint = capacityPerEndpoint;
  }

  /** Number of leading blocks, in order, that the endpoint has seen; the chain stops at the first miss. */
  public int matchedBlocks(String address, long[] blocks) {
    Lru lru = byEndpoint.get(address);
    if (lru == null) {
      return 0;
    }
    synchronized (lru) {
      int n = 0;
      while (n < blocks.length && lru.containsKey(blocks[n])) {
        n++;
      }
      return n;
    }
  }

  public void record(String address, long[] blocks) {
    Lru lru = byEndpoint.get(address);
    if (lru == null) {
      lru = byEndpoint.computeIfAbsent(address, a -> new Lru(capacityPerEndpoint));
    }
    synchronized (lru) {
      for (long b : blocks) {
        lru.put(b, Boolean.TRUE);
      }
    }
  }

  public void retainOnly(Set<String> addresses) {
    byEndpoint.keySet().retainAll(addresses);
  }

  private static final class Lru extends LinkedHashMap<Long, Boolean> {
    private final int capacity;

    Lru(int capacity) {
      super(64, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
      return size() > capacity;
    }
  }
}
