package io.llmgw.loadgen;

import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the simulated pods saw, read in-process: requests started per pod; per pod and adapter how often a batch used
 * the adapter and how often it already sat in a GPU slot (an affinity hit) rather than being swapped in; prompt tokens
 * and how many of them the prefix caches held.
 */
public record PoolStats(Map<String, Long> requestsByPod, Map<String, Map<String, long[]>> adapterUsesByPod,
    long promptTokens, long cachedPromptTokens) {
  public static PoolStats of(SimPods pods) {
    Map<String, Long> byPod = new TreeMap<>();
    Map<String, Map<String, long[]>> uses = new TreeMap<>();
    long prompt = 0;
    long cached = 0;
    for (SimServer pod : pods.pods()) {
      byPod.put(pod.address(), pod.engine().metrics().admitted());
      uses.put(pod.address(), pod.engine().metrics().adapterActivations());
      long[] tokens = pod.engine().metrics().promptAndCachedTokens();
      prompt += tokens[0];
      cached += tokens[1];
    }
    return new PoolStats(byPod, uses, prompt, cached);
  }

  /** Share of prompt tokens the pods found in their prefix caches. */
  public double prefixCacheHitRate() {
    return promptTokens == 0 ? 0 : (double) cachedPromptTokens / promptTokens;
  }

  /** Per adapter over all pods: {uses, hits}. */
  public Map<String, long[]> adapterUsesAndHits() {
    Map<String, long[]> out = new TreeMap<>();
    adapterUsesByPod.values().forEach(m -> m.forEach((adapter, c) -> out.merge(adapter, c.clone(),
        (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]})));
    return out;
  }

  public long adapterUses() {
    return adapterUsesAndHits().values().stream().mapToLong(c -> c[0]).sum();
  }

  public long affinityHits() {
    return adapterUsesAndHits().values().stream().mapToLong(c -> c[1]).sum();
  }

  /** Adapter uses that had to bring the adapter onto the GPU first. */
  public long swaps() {
    return adapterUses() - affinityHits();
  }
}
