package io.llmgw.adapters;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Adapters that must stay where they are: never evicted or scaled down (a rollout's two versions while it runs). */
public final class Pins {
  private final Set<String> pinned = ConcurrentHashMap.newKeySet();

  public void pin(String adapter) {
    pinned.add(adapter);
  }

  public void unpin(String adapter) {
    pinned.remove(adapter);
  }

  public boolean pinned(String adapter) {
    return pinned.contains(adapter);
  }

  Set<String> all() {
    return Set.copyOf(pinned);
  }
}
