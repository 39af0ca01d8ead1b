package io.llmgw.extproc.peers;

import io.llmgw.extproc.state.PeerLoad;
import java.util.Map;

/**
 * What a peer's snapshot may claim, beyond being well-formed: a replica reporting more than any pod runs, requests sent
 * in the future, or a tenant that spent more in a minute than in the day is not believed, and its whole message is
 * refused (a peer whose counts were taken as they came could make every pod look full, or every tenant over budget).
 */
final class PeerClaims {
  /** Requests one replica may have in flight at one pod: above any engine's running batch and queue together. */
  static final int MAX_IN_FLIGHT_PER_ENDPOINT = 2_048;
  /** How far ahead of this replica's clock a send time may be (the replicas' clocks differ a little). */
  static final long MAX_SKEW_MILLIS = 5_000;

  private PeerClaims() {}

  /** What in {@code s} cannot be believed, or null. */
  static String problem(PeerSnapshotCodec.Snapshot s, long nowMillis) {
    for (Map.Entry<String, PeerLoad> e : s.byEndpoint().entrySet()) {
      PeerLoad l = e.getValue();
      if (l.total() > MAX_IN_FLIGHT_PER_ENDPOINT) {
        return l.total() + " requests in flight at one pod, more than " + MAX_IN_FLIGHT_PER_ENDPOINT;
      }
      long byModel = 0;
      for (int n : l.byModel().values()) {
        byModel += n;
      }
      if (byModel > l.total() || l.inPrefill() > l.total() || l.unseenSentMillis().length > l.total()) {
        return "counts per model, in prefill or unseen beyond the pod's total of " + l.total();
      }
      long[] sent = l.unseenSentMillis();
      if (sent.length > 0 && sent[sent.length - 1] > nowMillis + MAX_SKEW_MILLIS) {
        return "a request sent " + (sent[sent.length - 1] - nowMillis) / 1000 + " s in the future";
      }
    }
    for (long[] spend : s.spendByTenant().values()) {
      if (spend[0] > spend[1]) {
        return "a tenant that spent more in the last minute than in the last day";
      }
      if (spend[2] > (long) MAX_IN_FLIGHT_PER_ENDPOINT * Math.max(1, s.byEndpoint().size())) {
        return "a tenant with more requests in flight than the replica reports in all";
      }
    }
    return null;
  }
}
