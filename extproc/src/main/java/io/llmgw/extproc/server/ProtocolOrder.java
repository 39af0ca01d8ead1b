package io.llmgw.extproc.server;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest.RequestCase;
import io.llmgw.extproc.request.RequestState;

/**
 * The order ext_proc frames must come in: request headers once, then the request's body and trailers, and response
 * frames only after the request was routed (response headers before the response's body and trailers). A proxy never
 * breaks it; a broken or hostile client does, and its stream ends with INVALID_ARGUMENT.
 */
final class ProtocolOrder {
  private ProtocolOrder() {}

  /** What is wrong with this frame now, or null when it may come. */
  static String violation(RequestCase frame, boolean headersArrived, RequestState state) {
    return switch (frame) {
      case REQUEST_HEADERS -> headersArrived ? "request headers twice" : null;
      case REQUEST_BODY -> headersArrived ? null : "request body before request headers";
      case REQUEST_TRAILERS -> headersArrived ? null : "request trailers before request headers";
      case RESPONSE_HEADERS -> state == RequestState.ROUTED ? null
          : state == RequestState.RESPONDING ? "response headers twice"
          : "response headers before the request was routed";
      case RESPONSE_BODY, RESPONSE_TRAILERS -> state == RequestState.RESPONDING ? null
          : state == RequestState.ROUTED ? frameName(frame) + " before response headers"
          : frameName(frame) + " before the request was routed";
      default -> "a frame without a request case";
    };
  }

  private static String frameName(RequestCase frame) {
    return frame == RequestCase.RESPONSE_BODY ? "response body" : "response trailers";
  }
}
