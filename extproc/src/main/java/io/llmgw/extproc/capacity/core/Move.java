package io.llmgw.extproc.capacity.core;

import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;

/**
 * INFaaS's vertical choice: a model-less route's load that moves to a cheaper variant's pool once it has room.
 *
 * @param share of the route's requests
 * @param savingPerHour what serving them on {@code to} instead of {@code from} saves, at each pool's throughput per pod
 */
public record Move(RouteKey route, PoolKey from, PoolKey to, double share, double savingPerHour) {}
