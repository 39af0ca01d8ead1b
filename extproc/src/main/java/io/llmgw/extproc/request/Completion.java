package io.llmgw.extproc.request;

import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.objectives.controller.RequestTiming;

/**
 * How a request's exchange ended, for the response hooks.
 *
 * @param code the HTTP status, or {@code cancelled}, {@code error}, {@code incomplete} when the stream ended first
 * @param timing what the response showed of the pod's latency; null unless a routed request completed with 200
 * @param usage the token usage the response reported, or null; as the pod sent it, so check {@link
 *     TokenUsage#plausible()} before believing it
 */
public record Completion(String code, RequestTiming timing, TokenUsage usage) {}
