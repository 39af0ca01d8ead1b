package io.llmgw.adapters;

import io.llmgw.picker.AdapterChanges;
import io.llmgw.picker.EndpointState;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The adapters this EPP loaded or unloaded on each pod in the last {@code ownActionTtl}: long enough for the pod's
 * next model list (scraped every second) to show it. What a pod holds is its own report corrected by this
 * ({@link EndpointState#holdsAdapter}, the one definition of resident), so a restarted EPP, which
 * remembers nothing, rebuilds residency from the pods alone. The latest action on a pod and adapter wins.
 */
public final class ResidencyRegistry implements AdapterChanges {
  private record Action(boolean loaded, long atMillis) {}

  private final Clock clock;
  private final long ttlMillis;
  private final Map<String, Map<String, Action>> byPod = new ConcurrentHashMap<>();

  public ResidencyRegistry(Clock clock, Duration ownActionTtl) {
    this.clock = clock;
    this.ttlMillis = ownActionTtl.toMillis();
  }

  void loaded(String address, String adapter) {
    record(address, adapter, true);
  }

  /** Recorded when the unload starts: requests must not be sent there meanwhile. */
  void unloaded(String address, String adapter) {
    record(address, adapter, false);
  }

  /** An unload that failed: the pod's report stands again. */
  void unloadFailed(String address, String adapter) {
    Map<String, Action> m = byPod.get(address);
    if (m != null) {
      m.computeIfPresent(adapter, (a, action) -> action.loaded() ? action : null);
    }
  }

  private void record(String address, String adapter, boolean loaded) {
    byPod.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, new Action(loaded, clock.millis()));
  }

  @Override
  public Boolean lately(String address, String adapter) {
    Map<String, Action> m = byPod.get(address);
    Action action = m == null ? null : m.get(adapter);
    if (action == null || clock.millis() - action.atMillis() >= ttlMillis) {
      return null;
    }
    return action.loaded();
  }

  @Override
  public Set<String> loadedLately(String address) {
    Map<String, Action> m = byPod.get(address);
    if (m == null) {
      return Set.of();
    }
    Set<String> out = new TreeSet<>();
    long horizon = clock.millis() - ttlMillis;
    m.forEach((adapter, action) -> {
      if (action.loaded() && action.atMillis() > horizon) {
        out.add(adapter);
      }
    });
    return out;
  }

  /** Drops actions the pods' reports have long replaced, and pods that are gone; returns how many went. */
  int reap(Set<String> live) {
    int dropped = 0;
    long horizon = clock.millis() - ttlMillis;
    for (var it = byPod.entrySet().iterator(); it.hasNext();) {
      var e = it.next();
      int before = e.getValue().size();
      if (live.contains(e.getKey())) {
        e.getValue().values().removeIf(a -> a.atMillis() <= horizon);
        dropped += before - e.getValue().size();
      } else {
        it.remove();
        dropped += before;
      }
    }
    return dropped;
  }

  /** Actions still held (expired ones included until reaped). */
  int size() {
    return byPod.values().stream().mapToInt(Map::size).sum();
  }
}
