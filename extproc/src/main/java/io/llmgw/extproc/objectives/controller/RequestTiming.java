package io.llmgw.extproc.objectives.controller;

import io.llmgw.api.LLMRoute;
import io.llmgw.picker.latency.LoadSnapshot;

/**
 * What the EPP saw of one completed response, for the latency model and the route's objectives.
 *
 * @param address the pod that served it
 * @param loadAtPick the pod's load when the request was sent there
 * @param promptTokens estimated from the request body, as at picking time
 * @param clientTtftMs from the request's arrival at the EPP to its first response token (queueing included)
 * @param podTtftMs from sending it to the pod to its first token
 * @param tpotMs time per output token after the first; NaN when fewer than two tokens were seen
 * @param model the model or adapter the pod served
 * @param outputTokens the tokens the response carried (its usage, else its stream's events)
 */
public record RequestTiming(LLMRoute route, String address, LoadSnapshot loadAtPick, long promptTokens,
    double clientTtftMs, double podTtftMs, double tpotMs, String model, long outputTokens) {}
