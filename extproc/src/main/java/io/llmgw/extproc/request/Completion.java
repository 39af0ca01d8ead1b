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
 * @param reason the error code of an answer the EPP gave itself ({@code rate_limit_exceeded},
 *     {@code no_ready_endpoint}, …); null when the pod answered or the stream ended first
 */
public record Completion(String code, RequestTiming timing, TokenUsage usage, String reason) {
  public Completion(String code, RequestTiming timing, TokenUsage usage) {
    this(code, timing, usage, null);
  }

  /** Not a 2xx: an error, a refusal, or a stream that ended first. */
  public boolean failed() {
    return code.length() != 3 || code.charAt(0) != '2';
  }
}
