package io.llmgw.extproc.state;

import io.llmgw.api.InferencePool;
import io.llmgw.api.PoolKey;
import io.llmgw.picker.Endpoint;
import java.util.List;

/** A pool and its current endpoints: every routable pod it selects, once per target port. */
public record PoolView(InferencePool pool, List<Endpoint> endpoints) {
  public PoolView {
    endpoints = List.copyOf(endpoints);
  }

  public PoolKey key() {
    return pool.key();
  }

  /** One of these pools may scale to zero ({@code llmgw.io/min-replicas: "0"}). */
  public static boolean mayScaleFromZero(List<PoolView> pools) {
    for (PoolView p : pools) {
      if (p.pool().capacity().minReplicas() == 0) {
        return true;
      }
    }
    return false;
  }
}
