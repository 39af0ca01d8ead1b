package io.llmgw.bench.load;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Belady's MIN: the fewest misses any cache of {@code capacity} adapters could have on a trace known in advance
 * (evict the adapter needed again furthest in the future). First uses are misses for everyone.
 */
final class Belady {
  private Belady() {}

  static int misses(List<String> trace, int capacity) {
    int n = trace.size();
    int[] nextUse = new int[n];
    Map<String, Integer> seenAt = new HashMap<>();
    for (int i = n - 1; i >= 0; i--) {
      nextUse[i] = seenAt.getOrDefault(trace.get(i), Integer.MAX_VALUE);
      seenAt.put(trace.get(i), i);
    }
    Set<String> cached = new HashSet<>();
    Map<String, Integer> cachedNext = new HashMap<>();
    // ordered by next use, furthest last; ties broken by name so the order is total
    TreeSet<String> byNextUse = new TreeSet<>((a, b) -> {
      int c = Integer.compare(cachedNext.get(a), cachedNext.get(b));
      return c != 0 ? c : a.compareTo(b);
    });
    int misses = 0;
    for (int i = 0; i < n; i++) {
      String a = trace.get(i);
      if (cached.contains(a)) {
        byNextUse.remove(a);
      } else {
        misses++;
        if (cached.size() >= capacity) {
          String evict = byNextUse.pollLast();
          cached.remove(evict);
          cachedNext.remove(evict);
        }
        cached.add(a);
      }
      cachedNext.put(a, nextUse[i]);
      byNextUse.add(a);
    }
    return misses;
  }
}
