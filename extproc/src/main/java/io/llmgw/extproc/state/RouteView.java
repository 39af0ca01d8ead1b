package io.llmgw.extproc.state;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.RouteKey;
import java.util.List;

/** A route with its pools resolved once per configuration, so the request path does no lookups by name. */
public record RouteView(LLMRoute route, List<PoolView> pools) {
  public RouteView {
    pools = List.copyOf(pools);
  }

  public RouteKey key() {
    return route.key();
  }
}
