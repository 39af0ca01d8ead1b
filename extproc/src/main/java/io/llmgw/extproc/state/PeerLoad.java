package io.llmgw.extproc.state;

import java.util.Arrays;
import java.util.Map;

/**
 * What peer replicas have in flight at one endpoint, as their last snapshots said: in total, per model, the send
 * times (epoch milliseconds, on the peers' clocks) of those the pod's reports may not show yet, and the requests still
 * waiting for their first token with their uncached prompt tokens.
 *
 * @param unseenSentMillis ascending (sorted here whatever order they came in)
 */
public record PeerLoad(int total, Map<String, Integer> byModel, long[] unseenSentMillis, int inPrefill,
    long prefillTokens) {
  /** Counts without prefill figures. */
  public PeerLoad(int total, Map<String, Integer> byModel, long[] unseenSentMillis) {
    this(total, byModel, unseenSentMillis, 0, 0);
  }

  public PeerLoad {
    unseenSentMillis = unseenSentMillis.clone();
    Arrays.sort(unseenSentMillis);
  }

  /** Of the unseen ones, those sent at or after {@code reportedAtMillis}. */
  int sentSince(long reportedAtMillis) {
    int i = Arrays.binarySearch(unseenSentMillis, reportedAtMillis);
    if (i < 0) {
      return unseenSentMillis.length - (-i - 1);
    }
    while (i > 0 && unseenSentMillis[i - 1] == reportedAtMillis) {
      i--; // the first of equal times
    }
    return unseenSentMillis.length - i;
  }
}
