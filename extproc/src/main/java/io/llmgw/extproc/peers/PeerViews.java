package io.llmgw.extproc.peers;

import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each peer's messages and the ends of their streams do to this replica's views of the fleet: the pods' loads,
 * tenants' spending, the routed prompts, what flows were charged, whether it is warm. Logs a peer coming and going
 * once, not per message or retry.
 */
final class PeerViews {
  private static final Logger LOG = LoggerFactory.getLogger(PeerExchange.class);

  private final String self;
  private final PeerLoads loads;
  private final PeerSpend spend;
  private final RoutedPrefixes routed;
  private final SharedCounters counters;
  private final WarmStart warmStart;
  private final PeerTraffic traffic;
  /** Whether each peer's stream is up (absent: never was). */
  private final Map<String, Boolean> up = new ConcurrentHashMap<>();

  PeerViews(String self, PeerLoads loads, PeerSpend spend, RoutedPrefixes routed, SharedCounters counters,
      WarmStart warmStart, PeerTraffic traffic) {
    this.self = self;
    this.loads = loads;
    this.spend = spend;
    this.routed = routed;
    this.counters = counters;
    this.warmStart = warmStart;
    this.traffic = traffic;
  }

  /** A message's signed payload: taken into every view, or refused whole (the problem answered, else null). */
  String heard(String peer, byte[] payload) {
    PeerSnapshotCodec.Snapshot s;
    String problem;
    try {
      s = PeerSnapshotCodec.decode(payload);
      problem = s.sender().equals(self) ? "a message that claims to be this replica's own" : PeerClaims.problem(s,
          System.currentTimeMillis());
    } catch (IOException | RuntimeException e) {
      s = null;
      problem = e.getMessage();
    }
    if (problem != null) {
      refused(peer, problem);
      return problem;
    }
    loads.update(peer, s.byEndpoint());
    spend.update(peer, s.sender(), s.spendByTenant());
    spend.learn(s.departed(), self);
    routed.learn(s.routed());
    counters.heard(s.served());
    traffic.chargesReceived(s.served().size());
    warmStart.answered(peer);
    if (up.put(peer, true) != Boolean.TRUE) {
      LOG.info("peer replica {}: receiving its in-flight counts", peer);
    }
    return null;
  }

  void refused(String peer, String problem) {
    traffic.refused();
    if (up.put(peer, false) != Boolean.FALSE) {
      LOG.warn("peer replica {}: its counts are refused ({}); they do not count until it sends ones that can be "
          + "believed", peer, problem);
    }
    loads.forget(peer);
    spend.silence(peer); // what it spent still counts, and so does its share: it may be admitting
  }

  /**
   * The peer's stream ended. Its counts stop counting at once.
   *
   * @param clean the peer ended the stream itself (it is shutting down): what it spent is held as a replica that left;
   *     otherwise it is cut off or dead, which this replica cannot tell apart, and its share is held until it is
   *     heard again (or is no longer a peer)
   * @param retryMillis when it is watched again; 0 when it is not (no longer a peer)
   */
  void ended(String peer, String why, boolean clean, long retryMillis) {
    loads.forget(peer);
    if (clean) {
      spend.ended(peer);
    } else {
      spend.silence(peer);
    }
    warmStart.answered(peer); // nobody there to greet this replica: waiting for it would keep this one out of service
    if (retryMillis == 0) {
      return;
    }
    Boolean was = up.put(peer, false);
    if (was == null) {
      LOG.info("peer replica {}: not answering yet ({}); trying every {} ms", peer, why, retryMillis);
    } else if (was) {
      LOG.warn("peer replica {}: gone ({}); its counts no longer count, trying again every {} ms", peer, why,
          retryMillis);
    }
  }

  /** No longer a peer: its counts go, what it spent is held as a replica that left ({@code expected} without it). */
  void stopped(String peer, Set<String> expected) {
    loads.forget(peer);
    spend.expect(expected);
    up.remove(peer);
    warmStart.check();
  }
}
