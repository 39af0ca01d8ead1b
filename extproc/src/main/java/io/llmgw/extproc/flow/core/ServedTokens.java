package io.llmgw.extproc.flow.core;

/**
 * Tokens a flow was charged for its weight, on one replica, between two of its peer messages: what the other replicas
 * add to their own counters so that a band is shared fairly across the fleet, not per replica (issue 51, item 5).
 *
 * @param pools the pool set's name ({@code ns/name}, several joined by commas): where the counters live
 * @param tokens negative when usage came in under what the flow was charged
 */
public record ServedTokens(String pools, int priority, String flowId, double tokens) {}
