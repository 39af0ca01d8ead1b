package io.llmgw.chattemplate;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Token ids of text pieces seen before, so that a conversation's history is not tokenized again on every turn: two
 * generations, the newer filled until it holds {@code budgetBytes}, when it becomes the older and the older is dropped
 * (what is still in use is read from the older and so moves to the newer). Bounded at twice the budget; thread-safe.
 */
final class SegmentCache {
  private final long budgetBytes;
  private volatile ConcurrentHashMap<String, int[]> newer = new ConcurrentHashMap<>();
  private volatile ConcurrentHashMap<String, int[]> older = new ConcurrentHashMap<>();
  private final AtomicLong newerBytes = new AtomicLong();

  SegmentCache(long budgetBytes) {
    this.budgetBytes = budgetBytes;
  }

  int[] get(String piece) {
    int[] ids = newer.get(piece);
    if (ids == null) {
      ids = older.get(piece);
      if (ids != null) {
        put(piece, ids);
      }
    }
    return ids;
  }

  void put(String piece, int[] ids) {
    long bytes = 2L * piece.length() + 4L * ids.length + 64;
    if (bytes > budgetBytes) {
      return;
    }
    if (newer.putIfAbsent(piece, ids) == null && newerBytes.addAndGet(bytes) > budgetBytes) {
      synchronized (this) {
        if (newerBytes.get() > budgetBytes) {
          older = newer;
          newer = new ConcurrentHashMap<>();
          newerBytes.set(0);
        }
      }
    }
  }
}
