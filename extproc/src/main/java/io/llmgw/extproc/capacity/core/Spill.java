package io.llmgw.extproc.capacity.core;

import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;

/**
 * A model-less route's requests that went to a dearer variant's pool because the cheaper one, which they qualify for,
 * had no room (saturated, or no pod): once it has room the EPP sends them there, so they are its demand.
 *
 * @param share of the route's requests
 */
public record Spill(RouteKey route, PoolKey from, PoolKey to, double perSecond, double share) {}
