package io.llmgw.extproc.state;

import io.llmgw.api.LLMRoute;
import io.llmgw.api.RouteKey;
import java.util.List;

/**
 * A route with its pools resolved once per configuration, so the request path does no lookups by name.
 *
 * @param name the route's key as text ({@code namespace/name}), made once: flow control names a request's flow by it
 */
public record RouteView(LLMRoute route, List<PoolView> pools, String name) {
  public RouteView {
    pools = List.copyOf(pools);
  }

  public RouteView(LLMRoute route, List<PoolView> pools) {
    this(route, pools, route.key().toString());
  }

  public RouteKey key() {
    return route.key();
  }
}
