package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * When each adapter was last used on each pod and anywhere, and how often: what eviction (least recently used idle
 * adapter), copy scaling (the rate tracker) and the pool-sizing gauge (global LRU age) read. Adapters found resident
 * but not used since this EPP started count as used at its start.
 */
public final class UsageTracker {
  private final Clock clock;
  private final Instant startedAt;
  private final Map<String, Map<String, Instant>> byPod = new ConcurrentHashMap<>();
  private final Map<String, Instant> anywhere = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> uses = new ConcurrentHashMap<>();

  public UsageTracker(Clock clock) {
    this.clock = clock;
    this.startedAt = clock.instant();
  }

  /** A request was routed to {@code adapter} on {@code address}: it is the most recently used there. */
  public void used(String address, String adapter) {
    Instant now = clock.instant();
    byPod.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, now);
    anywhere.put(adapter, now);
    uses.computeIfAbsent(adapter, a -> new LongAdder()).increment();
  }

  /** When {@code adapter} was last used on any pod (even one it has left since), or null since this EPP started. */
  public Instant lastUsed(String adapter) {
    return anywhere.get(adapter);
  }

  /** When each adapter was last used on one pod: a copy, for placement. */
  Map<String, Instant> lastUsedOn(String address) {
    return Map.copyOf(byPod.getOrDefault(address, Map.of()));
  }

  Instant lastUsedOn(String address, String adapter) {
    return byPod.getOrDefault(address, Map.of()).getOrDefault(adapter, Instant.MIN);
  }

  /** Requests routed to {@code adapter} since this EPP started (the copy scaler's rate tracker reads it). */
  public long uses(String adapter) {
    LongAdder n = uses.get(adapter);
    return n == null ? 0 : n.sum();
  }

  /** It left the pod: its use there no longer counts. */
  void forget(String address, String adapter) {
    Map<String, Instant> m = byPod.get(address);
    if (m != null) {
      m.remove(adapter);
    }
  }

  void retain(Set<String> live) {
    byPod.keySet().retainAll(live);
  }

  /**
   * Model-mesh's key number for sizing a pool: how long ago the least recently used adapter still resident anywhere
   * was last used. Small means the pool pages adapters out soon after use (too small); large means idle ones linger.
   */
  public Duration globalLruAge(List<EndpointState> endpoints) {
    Instant oldest = null;
    for (EndpointState e : endpoints) {
      if (!e.scrapeHealthy()) {
        continue;
      }
      Map<String, Instant> here = byPod.getOrDefault(e.address(), Map.of());
      for (String a : e.residentAdapters()) {
        Instant used = here.getOrDefault(a, startedAt);
        if (oldest == null || used.isBefore(oldest)) {
          oldest = used;
        }
      }
    }
    return oldest == null ? Duration.ZERO : Duration.between(oldest, clock.instant());
  }
}
