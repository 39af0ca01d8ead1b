package io.llmgw.adapters;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Where a missing adapter goes (pure): a reachable pod not yet tried and without a failure for it, with loads to spare;
 * first the pod with the most free capacity; when every pod is full, the pod whose least recently used idle adapter is
 * oldest, which is unloaded to make room (an adapter with requests in flight, or pinned by a rollout, is never
 * chosen); fewer running loads
 * break ties.
 */
final class Placement {
  /** @param evict the adapter to unload first, or null when the pod has room */
  record Choice(String address, String evict) {}

  private Placement() {}

  static Choice choose(List<PodView> pods, Set<String> excluded, int maxLoading) {
    List<PodView> eligible = pods.stream()
        .filter(p -> p.healthy() && !excluded.contains(p.address()) && p.loading() < maxLoading).toList();
    if (eligible.isEmpty()) {
      return null;
    }
    PodView roomiest = eligible.stream().max(Comparator.comparingInt(Placement::free)
        .thenComparing(Comparator.comparingInt(PodView::loading).reversed())
        .thenComparing(Comparator.comparing(PodView::address).reversed())).orElseThrow();
    if (free(roomiest) > 0) {
      return new Choice(roomiest.address(), null);
    }
    Choice best = null;
    Instant bestAge = null;
    int bestLoading = Integer.MAX_VALUE;
    for (PodView p : eligible) {
      String victim = leastRecentlyUsedIdle(p);
      if (victim == null) {
        continue;
      }
      Instant age = p.lastUse().getOrDefault(victim, Instant.MIN);
      if (best == null || age.isBefore(bestAge) || (age.equals(bestAge) && p.loading() < bestLoading)) {
        best = new Choice(p.address(), victim);
        bestAge = age;
        bestLoading = p.loading();
      }
    }
    // every resident adapter is busy: load anyway on the least crowded pod and let the server's own LRU cope
    return best != null ? best : new Choice(roomiest.address(), null);
  }

  private static int free(PodView p) {
    return p.capacity() - p.resident().size() - p.loading();
  }

  private static String leastRecentlyUsedIdle(PodView p) {
    return p.resident().stream().filter(a -> p.inFlight().getOrDefault(a, 0) == 0 && !p.pinned().contains(a))
        .min(Comparator.comparing((String a) -> p.lastUse().getOrDefault(a, Instant.MIN)).thenComparing(a -> a))
        .orElse(null);
  }
}
