package io.llmgw.extproc.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts requests the EPP routed whose response has not ended ("pending" in the seed policy). Every count is taken
 * through a {@link Lease} whose release is idempotent, so end-of-stream, error and cancellation can all release safely.
 */
public final class InFlightTracker {
  private final Map<String, EndpointLoad> loads = new ConcurrentHashMap<>();

  public EndpointLoad load(String address) {
    return loads.computeIfAbsent(address, a -> new EndpointLoad());
  }

  public Lease acquire(String address, String model) {
    Lease lease = new Lease(model);
    lease.address = address;
    load(address).increment(model);
    return lease;
  }

  public Map<String, EndpointLoad> all() {
    return loads;
  }

  /** One request's share of an endpoint's in-flight count. */
  public final class Lease {
    private final String model;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile String address;

    private Lease(String model) {
      this.model = model;
    }

    public String address() {
      return address;
    }

    /** The proxy served the request elsewhere (a fallback): count it where it actually runs. */
    public synchronized void moveTo(String served) {
      if (released.get() || served.equals(address)) {
        return;
      }
      load(served).increment(model);
      load(address).decrement(model);
      address = served;
    }

    public synchronized void release() {
      if (released.compareAndSet(false, true)) {
        load(address).decrement(model);
      }
    }
  }
}
