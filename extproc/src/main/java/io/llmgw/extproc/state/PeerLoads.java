package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-flight counts other EPP replicas last sent this one, per peer: each replica sees only the streams the proxy
 * gave it, so without these a burst spread over four replicas looks like a quarter of itself to each. A peer's
 * snapshot counts only while it is fresh; a peer that stops sending is forgotten, never waited for.
 */
public final class PeerLoads {
  private record Snapshot(long receivedNanos, Map<String, PeerLoad> byEndpoint) {}

  private final Map<String, Snapshot> byPeer = new ConcurrentHashMap<>();
  private final Ticker ticker;
  private final long freshNanos;

  public PeerLoads(Ticker ticker, Duration fresh) {
    this.ticker = ticker;
    this.freshNanos = fresh.toNanos();
  }

  /** A peer's latest snapshot replaces its previous one. */
  public void update(String peer, Map<String, PeerLoad> byEndpoint) {
    byPeer.put(peer, new Snapshot(ticker.nanos(), byEndpoint));
  }

  /** The peer went away (its stream ended): what it said no longer counts. */
  public void forget(String peer) {
    byPeer.remove(peer);
  }

  /** Peers whose last snapshot is fresh. */
  public int freshPeers() {
    long now = ticker.nanos();
    int n = 0;
    for (Snapshot s : byPeer.values()) {
      if (now - s.receivedNanos() <= freshNanos) {
        n++;
      }
    }
    return n;
  }

  /** This replica's counts at the endpoint, plus what fresh peers have there; {@code own} itself without peers. */
  InFlight combine(String address, InFlight own) {
    if (byPeer.isEmpty()) {
      return own;
    }
    long now = ticker.nanos();
    List<PeerLoad> there = null;
    for (Snapshot s : byPeer.values()) {
      PeerLoad l = now - s.receivedNanos() <= freshNanos ? s.byEndpoint().get(address) : null;
      if (l != null) {
        if (there == null) {
          there = new ArrayList<>(byPeer.size());
        }
        there.add(l);
      }
    }
    return there == null ? own : new SharedInFlight(own, there);
  }
}
