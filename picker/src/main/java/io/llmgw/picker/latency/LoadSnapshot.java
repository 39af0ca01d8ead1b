package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;

/**
 * How loaded a pod is at one moment, as the EPP can best tell between scrapes.
 *
 * @param waiting the pod's reported waiting queue, plus the requests the EPP sent it since that report ({@link
 *     EndpointState#queued}): without them, every request dispatched between two scrapes would see the same stale,
 *     too-low queue
 * @param running the pod's reported running requests
 * @param kvCacheUsage 0–1
 */
public record LoadSnapshot(double waiting, double running, double kvCacheUsage) {
  public static LoadSnapshot of(EndpointState e) {
    var m = e.metrics();
    return new LoadSnapshot(e.queued(), m.running(), m.kvCacheUsage());
  }
}
