package io.llmgw.picker;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Where an adapter can serve now: the reachable endpoints that hold it. */
public final class Residency {
  private Residency() {}

  /** Reachable endpoints holding {@code adapter}, in the given order. On the request path: reads in place. */
  public static Set<String> holders(String adapter, List<EndpointState> endpoints) {
    Set<String> out = new LinkedHashSet<>();
    for (EndpointState e : endpoints) {
      if (e.scrapeHealthy() && e.holdsAdapter(adapter)) {
        out.add(e.address());
      }
    }
    return out;
  }
}
