package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How many adapters each pod holds at most: its runtime's own figure once it answers (asked once), else the setting. */
public final class CapacityProbe {
  private static final Logger LOG = LoggerFactory.getLogger(CapacityProbe.class);

  private final AdapterRuntime runtime;
  private final int configured;
  private final Map<String, Integer> reported = new ConcurrentHashMap<>();
  private final Set<String> asked = ConcurrentHashMap.newKeySet();

  public CapacityProbe(AdapterRuntime runtime, int configured) {
    this.runtime = runtime;
    this.configured = configured;
  }

  public int capacity(String address) {
    if (asked.add(address)) {
      runtime.capacity(address).thenAccept(c -> c.ifPresent(n -> {
        reported.put(address, n);
        LOG.info("{} holds at most {} adapters, by its runtime's report", address, n);
      }));
    }
    return reported.getOrDefault(address, configured);
  }

  /** Some reachable pod holds fewer adapters than its capacity: a load there would evict nothing. */
  public boolean hasFreeRoom(List<EndpointState> endpoints) {
    for (EndpointState e : endpoints) {
      if (e.scrapeHealthy() && e.residentAdapters().size() < capacity(e.address())) {
        return true;
      }
    }
    return false;
  }

  void retain(Set<String> live) {
    reported.keySet().retainAll(live);
    asked.retainAll(live);
  }
}
