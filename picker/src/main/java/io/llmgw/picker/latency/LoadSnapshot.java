package io.llmgw.picker.latency;

import io.llmgw.picker.EndpointState;

/**
 * How loaded a pod is at one moment, as the EPP can best tell between scrapes.
 *
 * @param waiting the pod's reported waiting queue, plus the requests the EPP sent that the last scrape did not show yet
 *     (in flight beyond running + waiting): without them, every request dispatched between two scrapes would see the
 *     same stale, too-low queue
 * @param running the pod's reported running requests
 * @param kvCacheUsage 0–1
 */
public record LoadSnapshot(double waiting, double running, double kvCacheUsage) {
  public static LoadSnapshot of(EndpointState e) {
    var m = e.metrics();
    int unseen = Math.max(0, e.inFlight().total() - m.running() - m.waitingQueue());
    return new LoadSnapshot(m.waitingQueue() + unseen, m.running(), m.kvCacheUsage());
  }
}
