package io.llmgw.picker;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * What one model server last reported. Two different facts about adapters (docs/architecture.md, "Servable and
 * active"): {@code listedAdapters} is what the pod can serve without a load call (vLLM's {@code /v1/models} lists every
 * registered adapter, whether or not it sits in a GPU slot); running and waiting adapters are where requests are now
 * ({@code vllm:lora_requests_info}), and {@code recentAdapters} those the pod reported running or waiting lately.
 *
 * @param updatedAt when the report was asked for: the pod described itself at some moment after this, so requests the
 *     gateway sent from then on may be missing from its counts ({@link EndpointState#queued})
 * @param recentAdapters adapters the pod's reports showed running or waiting within the scraper's warm window (the
 *     current ones among them): vLLM keeps an idle adapter in its GPU slot until another needs the slot, and its
 *     reports stop naming it the moment its last request ends
 * @param reportedAdapters every adapter the report names (listed, running or waiting), derived here from the three
 *     (whatever is passed is replaced) once per scrape, so that asking whether a pod can serve an adapter, on every
 *     decision for every pod, is one lookup
 */
public record PodMetrics(
    int waitingQueue,
    int running,
    double kvCacheUsage,
    int maxLoras,
    Set<String> runningAdapters,
    Set<String> waitingAdapters,
    Set<String> listedAdapters,
    Set<String> baseModels,
    Instant updatedAt,
    Set<String> recentAdapters,
    Set<String> reportedAdapters) {

  public PodMetrics {
    runningAdapters = Set.copyOf(runningAdapters);
    waitingAdapters = Set.copyOf(waitingAdapters);
    listedAdapters = Set.copyOf(listedAdapters);
    baseModels = Set.copyOf(baseModels);
    recentAdapters = union(Set.copyOf(recentAdapters), runningAdapters, waitingAdapters);
    reportedAdapters = union(listedAdapters, runningAdapters, waitingAdapters);
  }

  /** A report with no memory of earlier ones: the recent adapters are the running and waiting ones. */
  public PodMetrics(int waitingQueue, int running, double kvCacheUsage, int maxLoras, Set<String> runningAdapters,
      Set<String> waitingAdapters, Set<String> listedAdapters, Set<String> baseModels, Instant updatedAt) {
    this(waitingQueue, running, kvCacheUsage, maxLoras, runningAdapters, waitingAdapters, listedAdapters, baseModels,
        updatedAt, Set.of(), Set.of());
  }

  /** Built on every scrape: in the usual case one of the three holds the others, and it is returned as it is. */
  private static Set<String> union(Set<String> a, Set<String> b, Set<String> c) {
    if (a.containsAll(b) && a.containsAll(c)) {
      return a;
    }
    if (b.containsAll(a) && b.containsAll(c)) {
      return b;
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
   * The pod's own report says it can serve the adapter: listed, or in its batch. What the gateway did lately corrects
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

  /**
   * The adapter runs in the pod's batch, or likely still sits in one of its GPU slots: reported running or waiting
   * lately, and the slots are not all taken by other adapters now (which would have evicted it, or keep it waiting: an
   * adapter whose requests wait because the batch already runs {@code max_lora} others is no place to send more).
   */
  public boolean warm(String adapter) {
    if (!recentAdapters.contains(adapter)) {
      return false;
    }
    if (maxLoras <= 0 || runningAdapters.contains(adapter)) {
      return true;
    }
    int active = activeAdapterCount();
    return waitingAdapters.contains(adapter) ? active <= maxLoras : active < maxLoras;
  }

  /** Another adapter can join the batch ({@code max_lora} not reached, or not reported). */
  public boolean hasFreeAdapterSlot() {
    return maxLoras <= 0 || activeAdapterCount() < maxLoras;
  }

  /** This report with the pod's model list and the scraper's memory of adapters it ran lately. */
  public PodMetrics withModels(Set<String> listed, Set<String> bases, Set<String> recent) {
    return new PodMetrics(waitingQueue, running, kvCacheUsage, maxLoras, runningAdapters, waitingAdapters, listed,
        bases, updatedAt, recent, Set.of());
  }
}
