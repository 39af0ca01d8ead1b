package io.llmgw.picker.routed;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-endpoint LRU of prompt block hashes routed there, by this replica or (when it shares) by its peers; bounded per
 * endpoint. Made by {@link RoutedPrefixes}, which hands this replica's new blocks to the peers.
 */
public final class RoutedIndex {
  private final int blockBytes;
  private final int capacityPerEndpoint;
  private final RoutedPrefixes owner;
  private final Map<String, Lru> byEndpoint = new ConcurrentHashMap<>();
  /** The pool's endpoints as last told; null until then. What peers say about any other address is not kept. */
  private volatile Set<String> live;

  RoutedIndex(int blockBytes, int capacityPerEndpoint, RoutedPrefixes owner) {
    this.blockBytes = blockBytes;
    this.capacityPerEndpoint = capacityPerEndpoint;
    this.owner = owner;
  }

  int blockBytes() {
    return blockBytes;
  }

  int capacityPerEndpoint() {
    return capacityPerEndpoint;
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

  /** This replica routed a prompt there; the blocks not yet recorded for that endpoint go to the peers. */
  public void record(String address, long[] blocks) {
    long[] fresh = put(address, blocks, owner.keeping());
    if (fresh != null) {
      owner.routed(new RoutedBlocks(blockBytes, address, fresh));
    }
  }

  /** A peer routed a prompt there: kept only for an endpoint of the pool, and not passed on. */
  void learn(String address, long[] blocks) {
    Set<String> known = live;
    if (known != null && known.contains(address)) {
      put(address, blocks, false);
    }
  }

  /** @return when asked, the blocks that were not there before, in order (null when none were new or not asked) */
  private long[] put(String address, long[] blocks, boolean collectFresh) {
    Lru lru = byEndpoint.get(address);
    if (lru == null) {
      lru = byEndpoint.computeIfAbsent(address, a -> new Lru(capacityPerEndpoint));
    }
    long[] fresh = null;
    int n = 0;
    synchronized (lru) {
      for (long b : blocks) {
        if (lru.put(b, Boolean.TRUE) == null && collectFresh) {
          if (fresh == null) {
            fresh = new long[blocks.length];
          }
          fresh[n++] = b;
        }
      }
    }
    return fresh == null ? null : n == fresh.length ? fresh : Arrays.copyOf(fresh, n);
  }

  public void retainOnly(Set<String> addresses) {
    live = Set.copyOf(addresses);
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
