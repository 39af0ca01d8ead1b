package io.llmgw.extproc.state;

import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens each tenant spent through the other replicas in the last minute and day, and its requests in flight
 * there, as each last said (issue 31): a budget holds across replicas when each counts what the others spent. A peer's figures count while they are fresh
 * and stop counting when it goes quiet or leaves. Read on admission of a request whose tenant has a budget; the sum
 * runs over the peers, a handful.
 */
public final class PeerSpend {
  private record Snapshot(long receivedNanos, Map<String, long[]> byTenant) {}

  private final Map<String, Snapshot> byPeer = new ConcurrentHashMap<>();
  private final Ticker ticker;
  private final long freshNanos;

  public PeerSpend(Ticker ticker, Duration fresh) {
    this.ticker = ticker;
    this.freshNanos = fresh.toNanos();
  }

  /**
   * @param byTenant per tenant: tokens spent through the peer in the last minute, in the last day, and its requests in
   *     flight there
   */
  public void update(String peer, Map<String, long[]> byTenant) {
    byPeer.put(peer, new Snapshot(ticker.nanos(), byTenant));
  }

  public void forget(String peer) {
    byPeer.remove(peer);
  }

  public long lastMinute(String tenant) {
    return sum(tenant, 0);
  }

  public long lastDay(String tenant) {
    return sum(tenant, 1);
  }

  public int inFlight(String tenant) {
    return (int) Math.min(Integer.MAX_VALUE, sum(tenant, 2));
  }

  private long sum(String tenant, int which) {
    if (byPeer.isEmpty()) {
      return 0;
    }
    long now = ticker.nanos();
    long total = 0;
    for (Snapshot s : byPeer.values()) {
      long[] spent = s.byTenant().get(tenant);
      if (spent != null && now - s.receivedNanos() <= freshNanos) {
        total += spent[which];
      }
    }
    return total;
  }
}
