package io.llmgw.extproc.flow.controller;

import io.llmgw.api.PoolKey;
import io.llmgw.extproc.state.PoolView;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The pools one flow-control queue holds requests for: a route's pools. Most routes have one; a model-less route's
 * variants may span several. As text, the pools' keys joined by commas (the queue's metric label).
 */
public record PoolSet(List<PoolKey> pools) {
  public PoolSet {
    pools = List.copyOf(pools);
  }

  public static PoolSet of(List<PoolView> views) {
    return new PoolSet(views.stream().map(PoolView::key).toList());
  }

  public boolean contains(PoolKey pool) {
    return pools.contains(pool);
  }

  @Override
  public String toString() {
    return pools.stream().map(PoolKey::toString).collect(Collectors.joining(","));
  }
}
