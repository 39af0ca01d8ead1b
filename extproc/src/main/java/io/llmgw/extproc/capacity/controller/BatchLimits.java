package io.llmgw.extproc.capacity.controller;

import io.llmgw.picker.PodMetrics;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What the pods say of their engines' batch limits: the largest batch each pod has run while requests kept waiting (the
 * engine's limit, its sequences or its KV cache, which vLLM does not publish) and the size of its KV cache. One scrape
 * with a queue proves nothing (a request that arrived between two engine steps waits for the next), so a pod's limit is
 * taken only from a scrape whose queue was there at the scrape before too. Fed from the scraper's threads (one map
 * update per scrape), read by the planning thread.
 */
public final class BatchLimits {
  static final int MAX_PODS = 100_000;

  private record Seen(boolean queued, int limit) {}

  private final Map<String, Seen> pods = new ConcurrentHashMap<>();
  private final Map<String, Long> kvCacheTokens = new ConcurrentHashMap<>();
  private final Function<String, PodMetrics> metrics;

  /** @param metrics a pod's latest scraped metrics by address */
  public BatchLimits(Function<String, PodMetrics> metrics) {
    this.metrics = metrics;
  }

  /** A scrape of {@code address} succeeded. */
  public void scraped(String address) {
    PodMetrics m = metrics.apply(address);
    if (m == null || pods.size() >= MAX_PODS && !pods.containsKey(address)) {
      return;
    }
    boolean queued = m.waitingQueue() > 0;
    pods.compute(address, (a, before) -> {
      int limit = before == null ? 0 : before.limit();
      if (queued && before != null && before.queued()) {
        limit = Math.max(limit, m.running());
      }
      return new Seen(queued, limit);
    });
  }

  /** The pod at {@code address} said its KV cache holds {@code tokens}. */
  public void kvCache(String address, long tokens) {
    if (tokens > 0 && (kvCacheTokens.size() < MAX_PODS || kvCacheTokens.containsKey(address))) {
      kvCacheTokens.put(address, tokens);
    }
  }

  /** The smallest KV cache among {@code addresses}, in tokens; 0 when none has said. */
  public long kvCacheTokens(Iterable<String> addresses) {
    long min = 0;
    for (String a : addresses) {
      Long t = kvCacheTokens.get(a);
      if (t != null && (min == 0 || t < min)) {
        min = t;
      }
    }
    return min;
  }

  /** The largest limit shown among {@code addresses}; 0 when none has shown one. */
  public int of(Iterable<String> addresses) {
    int max = 0;
    for (String a : addresses) {
      Seen s = pods.get(a);
      if (s != null) {
        max = Math.max(max, s.limit());
      }
    }
    return max;
  }

  /** Forgets pods that left. */
  public void retainOnly(Set<String> live) {
    pods.keySet().retainAll(live);
    kvCacheTokens.keySet().retainAll(live);
  }
}
