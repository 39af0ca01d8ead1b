package io.llmgw.extproc.server;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.grpc.Status;
import io.llmgw.api.LogSampler;
import io.llmgw.extproc.reply.ErrorReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a stream logs. Answers and ends that clients cause are counted in the metrics and logged at INFO once per kind
 * per 10 s, so a flood of bad requests cannot flood the log; everything else per request is DEBUG.
 */
final class StreamLog {
  private static final Logger LOG = LoggerFactory.getLogger(ExtProcStream.class);
  private static final LogSampler SAMPLED = LogSampler.everyTenSeconds();

  private StreamLog() {}

  static void answered(String requestId, ErrorReply reply) {
    // 429s and 408s are the gateway working as designed: never at INFO
    long skipped = reply.status() == 429 || reply.status() == 408 ? -1 : SAMPLED.admit(reply.code().wire());
    if (skipped >= 0) {
      LOG.info("request {}: {} {} ({}){}", requestId, reply.status(), reply.code(), reply.message(),
          LogSampler.leftOut(skipped));
    } else {
      LOG.debug("request {}: {} {} ({})", requestId, reply.status(), reply.code(), reply.message());
    }
  }

  static void endedByProxy(String requestId, Status.Code code) {
    long skipped = SAMPLED.admit(code.name());
    if (skipped >= 0) {
      LOG.info("request {}: stream ended by the proxy ({}) before the response completed{}", requestId, code,
          LogSampler.leftOut(skipped));
    } else {
      LOG.debug("request {}: stream ended by the proxy ({}) before the response completed", requestId, code);
    }
  }

  static void internalError(String requestId, String when, Throwable e) {
    LOG.error("request {}: internal error {}", requestId, when, e);
  }

  static void spoofed(String requestId, Object headers) {
    LOG.warn("request {}: removed client-supplied routing headers {}", requestId, headers);
  }

  static void unroutableBodyMode(String requestId, BodySendMode mode) {
    LOG.error("request {}: the proxy sends the request body in mode {}, in which the body cannot decide the route; "
        + "configure request_body_mode FULL_DUPLEX_STREAMED (or BUFFERED)", requestId, mode);
  }

  static void outOfOrder(String requestId, String violation) {
    LOG.warn("request {}: ext_proc frames out of order ({}); ending the stream", requestId, violation);
  }

  /** Per request: guarded, so that a routed request builds no argument array while DEBUG is off. */
  static void routed(String requestId, String model, String target, String destination) {
    if (LOG.isDebugEnabled()) {
      LOG.debug("request {}: model {} target {} -> {}", requestId, model, target, destination);
    }
  }
}
