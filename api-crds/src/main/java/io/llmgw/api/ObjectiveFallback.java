package io.llmgw.api;

/**
 * What a route's request does when no pod is predicted to meet the route's latency objective: wait in the EPP's queue
 * until one is (bounded by the flow-control TTL), or, for a sheddable route, be answered 429 at once.
 */
public enum ObjectiveFallback { QUEUE, SHED }
