package io.llmgw.scraper;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One pod's adapters seen running or waiting within the warm window. vLLM names an adapter in
 * {@code vllm:lora_requests_info} only while requests for it run or wait, and keeps it in its GPU slot after that until
 * another adapter needs the slot: an adapter that ran a moment ago is still the cheapest place to send the next request
 * for it. Bounded: names the pod reported longer ago than the window are dropped, and at most {@link #MAX_NAMES} are
 * kept (the oldest go first). Used by the scrape of one pod at a time.
 */
final class AdapterActivityMemory {
  static final int MAX_NAMES = 256;

  private final Duration window;
  private final Map<String, Instant> lastSeen = new HashMap<>();
  private Set<String> current = Set.of();

  AdapterActivityMemory(Duration window) {
    this.window = window;
  }

  /** Records what one report shows active at {@code at} and returns every adapter seen within the window. */
  Set<String> update(Set<String> running, Set<String> waiting, Instant at) {
    boolean changed = false;
    for (Set<String> names : List.of(running, waiting)) {
      for (String name : names) {
        changed |= lastSeen.put(name, at) == null;
      }
    }
    Instant oldest = at.minus(window);
    changed |= lastSeen.values().removeIf(seen -> seen.isBefore(oldest));
    if (lastSeen.size() > MAX_NAMES) {
      lastSeen.entrySet().stream().sorted(Map.Entry.comparingByValue()).limit(lastSeen.size() - MAX_NAMES)
          .map(Map.Entry::getKey).toList().forEach(lastSeen::remove);
      changed = true;
    }
    if (changed) {
      current = Set.copyOf(lastSeen.keySet());
    }
    return current;
  }
}
