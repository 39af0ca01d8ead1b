package io.llmgw.extproc.state;

import java.util.Map;

/**
 * What one peer replica has in flight at one endpoint, as its last snapshot said: in total, per model, and the send
 * times (epoch milliseconds, on the peer's clock) of those the pod's reports may not show yet.
 */
public record PeerLoad(int total, Map<String, Integer> byModel, long[] unseenSentMillis) {
  /** Of the unseen ones, those sent at or after {@code reportedAtMillis}. */
  int sentSince(long reportedAtMillis) {
    int n = 0;
    for (long t : unseenSentMillis) {
      if (t >= reportedAtMillis) {
        n++;
      }
    }
    return n;
  }
}
