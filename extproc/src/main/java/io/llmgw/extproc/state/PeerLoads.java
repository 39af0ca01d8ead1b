package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-flight counts other EPP replicas last sent this one, per peer: each replica sees only the streams the proxy
 * gave it, so without these a burst spread over four replicas looks like a quarter of itself to each. A peer's
 * snapshot counts only while it is fresh; a peer that stops sending is forgotten, never waited for.
 *
 * <p>The peers' counts are summed per endpoint when a peer speaks or goes (every 25 ms per peer), not on the request
 * path: a decision reads one map entry per endpoint, whatever the number of peers.
 */
public final class PeerLoads {
  private record Snapshot(long receivedNanos, Map<String, PeerLoad> byEndpoint) {}

  /** Every fresh peer's loads summed per endpoint; to be rebuilt once {@code expiresNanos} passes. */
  private record Merged(Map<String, PeerLoad> byEndpoint, long expiresNanos) {}

  private final Map<String, Snapshot> byPeer = new ConcurrentHashMap<>();
  private final Ticker ticker;
  private final long freshNanos;
  private volatile Merged merged = new Merged(Map.of(), Long.MAX_VALUE);

  public PeerLoads(Ticker ticker, Duration fresh) {
    this.ticker = ticker;
    this.freshNanos = fresh.toNanos();
  }

  /** A peer's latest snapshot replaces its previous one. */
  public void update(String peer, Map<String, PeerLoad> byEndpoint) {
    byPeer.put(peer, new Snapshot(ticker.nanos(), byEndpoint));
    rebuild();
  }

  /** The peer went away (its stream ended): what it said no longer counts. */
  public void forget(String peer) {
    if (byPeer.remove(peer) != null) {
      rebuild();
    }
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

  /** This replica's counts at the endpoint, plus what fresh peers have there; {@code own} itself without any. */
  InFlight combine(String address, InFlight own) {
    Merged m = merged;
    if (m.byEndpoint().isEmpty()) {
      return own;
    }
    if (ticker.nanos() - m.expiresNanos() > 0) {
      m = rebuild(); // a peer went quiet: its counts stop counting
    }
    PeerLoad there = m.byEndpoint().get(address);
    return there == null ? own : new SharedInFlight(own, there);
  }

  private synchronized Merged rebuild() {
    long now = ticker.nanos();
    long expires = Long.MAX_VALUE;
    Map<String, PeerLoad> sum = new HashMap<>();
    for (Snapshot s : byPeer.values()) {
      if (now - s.receivedNanos() > freshNanos) {
        continue;
      }
      expires = Math.min(expires, s.receivedNanos() + freshNanos);
      s.byEndpoint().forEach((address, l) -> sum.merge(address, l, PeerLoads::add));
    }
    Merged m = new Merged(Map.copyOf(sum), expires);
    merged = m;
    return m;
  }

  private static PeerLoad add(PeerLoad a, PeerLoad b) {
    Map<String, Integer> models = new HashMap<>(a.byModel());
    b.byModel().forEach((model, n) -> models.merge(model, n, Integer::sum));
    long[] unseen = Arrays.copyOf(a.unseenSentMillis(), a.unseenSentMillis().length + b.unseenSentMillis().length);
    System.arraycopy(b.unseenSentMillis(), 0, unseen, a.unseenSentMillis().length, b.unseenSentMillis().length);
    Arrays.sort(unseen);
    return new PeerLoad(a.total() + b.total(), Map.copyOf(models), unseen, a.inPrefill() + b.inPrefill(),
        a.prefillTokens() + b.prefillTokens());
  }
}
