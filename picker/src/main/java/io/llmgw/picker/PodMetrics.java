package io.llmgw.picker;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * What one model server last reported. {@code loadedAdapters} is residency (from {@code /v1/models} or
 * {@code vllm:lora_adapter_loaded}); running and waiting adapters are request activity ({@code vllm:lora_requests_info}).
 *
 * @param updatedAt when the report was asked for: the pod described itself at some moment after this, so requests the
 *     gateway sent from then on may be missing from its counts ({@link EndpointState#queued})
 * @param reportedAdapters every adapter the report names (loaded, running or waiting), derived here from the three
 *     (whatever is passed is replaced) once per scrape, so that asking whether a pod reports an adapter, on every
 *     decision for every pod, is one lookup
 */
public record PodMetrics(
    int waitingQueue,
    int running,
    double kvCacheUsage,
    int maxLoras,
    Set<String> runningAdapters,
    Set<String> waitingAdapters,
    Set<String> loadedAdapters,
    Set<String> baseModels,
    Instant updatedAt,
    Set<String> reportedAdapters) {

  public PodMetrics {
    runningAdapters = Set.copyOf(runningAdapters);
    waitingAdapters = Set.copyOf(waitingAdapters);
    loadedAdapters = Set.copyOf(loadedAdapters);
    baseModels = Set.copyOf(baseModels);
    reportedAdapters = union(loadedAdapters, runningAdapters, waitingAdapters);
  }

  public PodMetrics(int waitingQueue, int running, double kvCacheUsage, int maxLoras, Set<String> runningAdapters,
      Set<String> waitingAdapters, Set<String> loadedAdapters, Set<String> baseModels, Instant updatedAt) {
    this(waitingQueue, running, kvCacheUsage, maxLoras, runningAdapters, waitingAdapters, loadedAdapters, baseModels,
        updatedAt, Set.of());
  }

  private static Set<String> union(Set<String> a, Set<String> b, Set<String> c) {
    if (b.isEmpty() && c.isEmpty()) {
      return a;
    }
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    out.addAll(c);
    return Set.copyOf(out);
  }

  public static PodMetrics unknown() {
    return new PodMetrics(0, 0, 0, 0, Set.of(), Set.of(), Set.of(), Set.of(), Instant.EPOCH);
  }

  /**
   * The pod's own report holds the adapter: listed as loaded, or in its batch. What the gateway did lately corrects
   * this: {@link EndpointState#holdsAdapter} is the definition to use.
   */
  public boolean reportsAdapter(String name) {
    return reportedAdapters.contains(name);
  }

  /**
   * Adapters the server's batch is using or queueing for ({@code vllm:lora_requests_info}): what competes for its
   * {@code max_lora} slots. Resident but idle adapters do not; vLLM swaps them in when a request needs them.
   */
  public int activeAdapterCount() {
    int n = runningAdapters.size();
    for (String a : waitingAdapters) {
      if (!runningAdapters.contains(a)) {
        n++;
      }
    }
    return n;
  }

  /** The model runs in the batch now: a base model the pod serves, or an adapter among its running ones. */
  public boolean inBatch(String model) {
    return baseModels.contains(model) || runningAdapters.contains(model);
  }

  /** Another adapter can join the batch ({@code max_lora} not reached, or not reported). */
  public boolean hasFreeAdapterSlot() {
    return maxLoras <= 0 || activeAdapterCount() < maxLoras;
  }

  public PodMetrics withModels(Set<String> loaded, Set<String> bases) {
    return new PodMetrics(waitingQueue, running, kvCacheUsage, maxLoras, runningAdapters, waitingAdapters, loaded,
        bases,
        updatedAt);
  }
}
