package io.llmgw.extproc.state;

import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each tenant spent through the other replicas (issue 31), kept so that a budget holds while replicas are cut off,
 * die and restart (issue 51). Three kinds of figures count against a tenant's limits:
 *
 * <ul>
 *   <li>a peer heard within the freshness: what it last said;
 *   <li>a peer this replica expects ({@link #expect}: listed or discovered) and does not hear now — cut off, not
 *       answering, refused, or not heard yet: what it last said, and at least its share of each limit (the limit over
 *       the fleet's size), since it may be admitting meanwhile. Every side of a partition holds the others' shares, so
 *       together they admit no more than the limit however long the partition lasts;
 *   <li>a replica that left — it ended its stream, came back under a new id (a restart), is no longer a peer, or a
 *       peer's greeting named it — its last figures, frozen, for each window's length after it left: what it spent
 *       was spent, and a restart must not give it back.
 * </ul>
 *
 * <p>Read on admission of a request whose tenant has a budget; the sums run over a handful of peers and at most
 * {@link #MAX_DEPARTED} replicas that left.
 */
public final class PeerSpend {
  /** Replicas that left whose figures are kept; past it the oldest are dropped (they have the least left to count). */
  public static final int MAX_DEPARTED = 256;
  private static final long MINUTE_NANOS = 60_000_000_000L;
  private static final long DAY_NANOS = 86_400_000_000_000L;

  /**
   * A replica whose figures are held without hearing it: per tenant the last minute's and day's tokens and its requests
   * in flight, as it last said.
   *
   * @param ageMillis how long ago it left, or was last heard
   */
  public record Departed(String sender, long ageMillis, Map<String, long[]> byTenant) {}

  private record Heard(String sender, long receivedNanos, Map<String, long[]> byTenant) {}

  private record Left(long leftNanos, Map<String, long[]> byTenant) {}

  private final Ticker ticker;
  private final long freshNanos;
  private Set<String> expected = Set.of();
  private final Map<String, Heard> byAddress = new HashMap<>();
  /** Addresses whose stream failed or was refused since they were last heard: not heard now, whatever their age. */
  private final Set<String> silenced = new HashSet<>();
  private final Map<String, Left> departed = new HashMap<>();

  public PeerSpend(Ticker ticker, Duration fresh) {
    this.ticker = ticker;
    this.freshNanos = fresh.toNanos();
  }

  /** The peers this replica watches now (host:port); one that is no longer among them has left. */
  public synchronized void expect(Set<String> addresses) {
    for (String address : Set.copyOf(byAddress.keySet())) {
      if (!addresses.contains(address)) {
        leave(address);
      }
    }
    silenced.retainAll(addresses);
    expected = Set.copyOf(addresses);
  }

  /**
   * @param byTenant per tenant: tokens spent through the peer in the last minute, in the last day, and its requests in
   *     flight there
   */
  public synchronized void update(String address, String sender, Map<String, long[]> byTenant) {
    Heard before = byAddress.get(address);
    if (before != null && !before.sender().equals(sender)) {
      departed.put(before.sender(), new Left(ticker.nanos(), before.byTenant())); // restarted: a new process there
    }
    departed.remove(sender); // heard again: its own figures count now, and they include what it had spent
    byAddress.put(address, new Heard(sender, ticker.nanos(), byTenant));
    silenced.remove(address);
  }

  /** The peer's stream failed, or what it sent was refused: not heard now, though it may still be admitting. */
  public synchronized void silence(String address) {
    silenced.add(address);
  }

  /** The peer ended its stream (it is shutting down): what it spent is held for each window's length. */
  public synchronized void ended(String address) {
    leave(address);
  }

  private void leave(String address) {
    Heard h = byAddress.remove(address);
    if (h != null) {
      departed.put(h.sender(), new Left(ticker.nanos(), h.byTenant()));
      trim();
    }
  }

  /** Replicas a peer holds without hearing them (from its greeting): held here too, unless heard here now. */
  public synchronized void learn(List<Departed> records, String self) {
    if (records.isEmpty()) {
      return; // every message but a greeting
    }
    long now = ticker.nanos();
    Set<String> heard = new HashSet<>();
    byAddress.values().forEach(h -> heard.add(h.sender()));
    for (Departed d : records) {
      if (d.sender().equals(self) || heard.contains(d.sender()) || d.ageMillis() * 1_000_000L >= DAY_NANOS) {
        continue;
      }
      Left mine = departed.get(d.sender());
      long left = now - d.ageMillis() * 1_000_000L;
      if (mine == null || left - mine.leftNanos() > 0) {
        departed.put(d.sender(), new Left(left, d.byTenant()));
      }
    }
    trim();
  }

  /** What this replica holds without hearing it, for a new peer's greeting. */
  public synchronized List<Departed> unheard() {
    long now = ticker.nanos();
    List<Departed> out = new ArrayList<>();
    departed.forEach((sender, l) -> {
      if (now - l.leftNanos() < DAY_NANOS) {
        out.add(new Departed(sender, (now - l.leftNanos()) / 1_000_000L, l.byTenant()));
      }
    });
    byAddress.forEach((address, h) -> {
      if (!heardNow(address, h, now)) {
        out.add(new Departed(h.sender(), (now - h.receivedNanos()) / 1_000_000L, h.byTenant()));
      }
    });
    return out;
  }

  /** Tokens the tenant spent elsewhere in the last minute, with the shares of the peers not heard now. */
  public long minuteHeld(String tenant, long limit) {
    return held(tenant, 0, limit);
  }

  public long dayHeld(String tenant, long limit) {
    return held(tenant, 1, limit);
  }

  public int inFlightHeld(String tenant, int limit) {
    return (int) Math.min(Integer.MAX_VALUE, held(tenant, 2, limit == Integer.MAX_VALUE ? Long.MAX_VALUE : limit));
  }

  /** What the tenant spent elsewhere in the last minute as far as this replica knows (no shares): for display. */
  public long lastMinute(String tenant) {
    return held(tenant, 0, Long.MAX_VALUE);
  }

  public long lastDay(String tenant) {
    return held(tenant, 1, Long.MAX_VALUE);
  }

  public int inFlight(String tenant) {
    return inFlightHeld(tenant, Integer.MAX_VALUE);
  }

  /** Expected peers not heard now. */
  public synchronized int unreachable() {
    long now = ticker.nanos();
    int n = 0;
    for (String address : expected) {
      Heard h = byAddress.get(address);
      if (h == null || !heardNow(address, h, now)) {
        n++;
      }
    }
    return n;
  }

  /** Replicas that left whose spending is still held. */
  public synchronized int departed() {
    return departed.size();
  }

  private synchronized long held(String tenant, int which, long limit) {
    if (expected.isEmpty() && byAddress.isEmpty() && departed.isEmpty()) {
      return 0;
    }
    long now = ticker.nanos();
    long share = limit == Long.MAX_VALUE ? 0 : ceilDiv(limit, expected.size() + 1L);
    long total = 0;
    for (String address : expected) {
      Heard h = byAddress.get(address);
      long last = h == null ? 0 : figure(h.byTenant(), tenant, which);
      total += h != null && heardNow(address, h, now) ? last : Math.max(last, share);
    }
    for (Map.Entry<String, Heard> e : byAddress.entrySet()) {
      if (!expected.contains(e.getKey())) {
        total += figure(e.getValue().byTenant(), tenant, which); // heard before it was expected (discovery races)
      }
    }
    if (which != 2) { // a replica that left has nothing in flight
      long window = which == 0 ? MINUTE_NANOS : DAY_NANOS;
      for (Left l : departed.values()) {
        if (now - l.leftNanos() < window) {
          total += figure(l.byTenant(), tenant, which);
        }
      }
    }
    return total;
  }

  private boolean heardNow(String address, Heard h, long now) {
    return now - h.receivedNanos() <= freshNanos && !silenced.contains(address);
  }

  private static long figure(Map<String, long[]> byTenant, String tenant, int which) {
    long[] spent = byTenant.get(tenant);
    return spent == null ? 0 : spent[which];
  }

  private static long ceilDiv(long a, long b) {
    return a / b + (a % b == 0 ? 0 : 1);
  }

  private void trim() {
    long now = ticker.nanos();
    departed.values().removeIf(l -> now - l.leftNanos() >= DAY_NANOS);
    if (departed.size() > MAX_DEPARTED) {
      List<Map.Entry<String, Left>> byAge = new ArrayList<>(departed.entrySet());
      byAge.sort(Comparator.comparingLong(e -> e.getValue().leftNanos()));
      for (int i = 0; i < byAge.size() - MAX_DEPARTED; i++) {
        departed.remove(byAge.get(i).getKey());
      }
    }
  }
}
