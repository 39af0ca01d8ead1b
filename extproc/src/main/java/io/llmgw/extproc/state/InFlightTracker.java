package io.llmgw.extproc.state;

import io.llmgw.picker.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts requests the EPP routed whose response has not ended ("pending" in the seed policy). Every count is taken
 * through a {@link Lease} whose release is idempotent, so end-of-stream, error and cancellation can all release safely.
 * A lease keeps the counter it incremented, so forgetting an endpoint can never make a later release miscount. A lease
 * held past the longest a request may take is released by {@link #expireOlderThan}: a stream kept open after its
 * routing answer (a stuck proxy, a hostile client) must not count against its pod forever.
 */
public final class InFlightTracker {
  private final Map<String, EndpointLoad> loads = new ConcurrentHashMap<>();
  private final Set<Lease> held = ConcurrentHashMap.newKeySet();
  private final Ticker ticker;
  private final Clock clock;

  /**
   * @param ticker when a lease was taken, for its expiry
   * @param clock when a request was sent, on the clock that stamps the pods' reports
   */
  public InFlightTracker(Ticker ticker, Clock clock) {
    this.ticker = ticker;
    this.clock = clock;
  }

  /** Read on every decision for every endpoint: a plain get first, since computeIfAbsent may lock the bin. */
  public EndpointLoad load(String address) {
    EndpointLoad load = loads.get(address);
    return load != null ? load : loads.computeIfAbsent(address, a -> new EndpointLoad());
  }

  public Lease acquire(String address, String model) {
    return acquire(address, model, 0);
  }

  /** @param prefillTokens the uncached prompt tokens the request brings, counted until its first token */
  public Lease acquire(String address, String model, long prefillTokens) {
    EndpointLoad load = load(address);
    Lease lease = new Lease(model, address, load, load.increment(model, clock.millis(), prefillTokens),
        ticker.nanos());
    held.add(lease);
    return lease;
  }

  /** Releases every lease held longer than {@code max}; how many. Costs one pass over the requests in flight. */
  public int expireOlderThan(Duration max) {
    long cutoff = ticker.nanos() - max.toNanos();
    int expired = 0;
    for (Lease lease : held) {
      if (lease.acquiredNanos - cutoff < 0 && lease.release()) {
        expired++;
      }
    }
    return expired;
  }

  public Map<String, EndpointLoad> all() {
    return loads;
  }

  /** Drops idle counters of endpoints that are gone; counters with requests in flight stay until they drain. */
  public void forgetIdleExcept(Set<String> live) {
    loads.entrySet().removeIf(e -> !live.contains(e.getKey()) && e.getValue().total() == 0);
  }

  /** One request's share of an endpoint's in-flight count. */
  public final class Lease {
    private final String model;
    private final long acquiredNanos;
    private String address;
    private EndpointLoad load;
    private EndpointLoad.Sent sent;
    private boolean released;

    private Lease(String model, String address, EndpointLoad load, EndpointLoad.Sent sent, long acquiredNanos) {
      this.model = model;
      this.address = address;
      this.load = load;
      this.sent = sent;
      this.acquiredNanos = acquiredNanos;
    }

    public synchronized String address() {
      return address;
    }

    /** The proxy served the request elsewhere (a fallback): count it where it actually runs. */
    public synchronized void moveTo(String served) {
      if (released || served.equals(address)) {
        return;
      }
      EndpointLoad target = load(served);
      long prefill = load.prefillDone(sent); // what it did not prefill yet, it prefills there
      EndpointLoad.Sent there = target.increment(model, clock.millis(), Math.max(0, prefill));
      if (prefill < 0) {
        target.prefillDone(there);
      }
      load.decrement(model, sent);
      load = target;
      sent = there;
      address = served;
    }

    /** The first response bytes came: its prompt is prefilled. */
    public synchronized void firstToken() {
      if (!released) {
        load.prefillDone(sent);
      }
    }

    /** @return whether this call released it (false when it already was) */
    public synchronized boolean release() {
      if (released) {
        return false;
      }
      released = true;
      load.decrement(model, sent);
      held.remove(this);
      return true;
    }
  }
}
