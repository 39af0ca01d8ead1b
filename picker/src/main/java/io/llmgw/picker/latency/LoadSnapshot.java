package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PodMetrics;

/**
 * How loaded a pod is at one moment, as the EPP can best tell between scrapes, and what a request would find there.
 *
 * @param waiting the pod's reported waiting queue, plus the requests the EPP sent it since that report ({@link
 *     EndpointState#queued}): without them, every request dispatched between two scrapes would see the same stale,
 *     too-low queue
 * @param running the pod's reported running requests
 * @param kvCacheUsage 0–1
 * @param cachedShare the share of the request's prompt the pod's prefix cache likely holds (0 when unknown)
 * @param adapterSlot where the request's adapter stands in the pod's batch: {@link #IN_BATCH} (or the base model),
 *     {@link #FREE_SLOT} (it can join, maybe after a swap) or {@link #NO_SLOT} (it waits for an adapter to leave)
 */
public record LoadSnapshot(double waiting, double running, double kvCacheUsage, double cachedShare, int adapterSlot) {
  public static final int IN_BATCH = 0;
  public static final int FREE_SLOT = 1;
  public static final int NO_SLOT = 2;

  /** A load that says nothing about a particular request: no cached prefix, the model in the batch. */
  public LoadSnapshot(double waiting, double running, double kvCacheUsage) {
    this(waiting, running, kvCacheUsage, 0, IN_BATCH);
  }

  public static LoadSnapshot of(EndpointState e) {
    var m = e.metrics();
    return new LoadSnapshot(e.queued(), m.running(), m.kvCacheUsage());
  }

  /** The pod's load as a request for {@code model} would meet it, a {@code cachedShare} of its prompt cached there. */
  public static LoadSnapshot of(EndpointState e, String model, double cachedShare) {
    PodMetrics m = e.metrics();
    return new LoadSnapshot(e.queued(), m.running(), m.kvCacheUsage(), cachedShare, slot(m, model));
  }

  public LoadSnapshot withRunning(double n) {
    return new LoadSnapshot(waiting, n, kvCacheUsage, cachedShare, adapterSlot);
  }

  public LoadSnapshot withCachedShare(double share) {
    return new LoadSnapshot(waiting, running, kvCacheUsage, share, adapterSlot);
  }

  /** As the LoRA-affinity scorer reads the batch: running (or the base model), a free slot, or none. */
  static int slot(PodMetrics m, String model) {
    return m.inBatch(model) ? IN_BATCH : m.hasFreeAdapterSlot() ? FREE_SLOT : NO_SLOT;
  }
}
