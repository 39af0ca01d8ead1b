package io.llmgw.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The EPP's answer on {@code GET /admin/load}: every pool's load, and each routed model's pool.
 *
 * @param models each routed model's pool key
 */
public record LoadReport(List<PoolLoad> pools, Map<String, String> models) {
  public LoadReport {
    pools = List.copyOf(pools);
    models = Collections.unmodifiableMap(new LinkedHashMap<>(models)); // in the writer's order
  }
}
