package io.llmgw.batch.dispatch;

import java.util.List;
import java.util.Map;

/**
 * One answer of the EPP's {@code /admin/load}.
 *
 * @param models each routed model's pool
 */
public record LoadReading(List<PoolLoad> pools, Map<String, String> models) {
  public LoadReading {
    pools = List.copyOf(pools);
    models = Map.copyOf(models);
  }
}
