package io.llmgw.extproc;

import java.time.Duration;

/**
 * How one request is read and answered.
 *
 * @param maxBodyBytes larger request bodies are answered 413
 * @param bytesPerToken how a prompt's size in tokens is estimated from its body's bytes (for the latency model)
 * @param maxFallbacks endpoints named after the primary, for the proxy to retry on
 * @param headerCarriesFallbacks put the whole ordered list in the destination header too (the metadata always has it)
 * @param trustRewriteHeader obey {@code x-gateway-model-name-rewrite} (among the route's targets): only when a proxy in
 *     front sets it and drops the client's
 * @param maxRequestDuration a routed request still counted in flight after this long stops counting (its stream was
 *     kept open after the routing answer, or the response never ended)
 */
public record RequestSettings(int maxBodyBytes, int bytesPerToken, int maxFallbacks, boolean headerCarriesFallbacks,
    boolean trustRewriteHeader, Duration maxRequestDuration) {
  public RequestSettings {
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException("--max-body-bytes must be at least 1024");
    }
    if (maxRequestDuration.toMillis() < 1_000) {
      throw new IllegalArgumentException("--max-request-duration must be at least 1s");
    }
    if (bytesPerToken < 1 || maxFallbacks < 0 || maxFallbacks > 10) {
      throw new IllegalArgumentException("bytes per token must be at least 1 and fallbacks within 0..10");
    }
  }

  public static RequestSettings defaults() {
    return new RequestSettings(8 << 20, 4, 2, false, false, Duration.ofMinutes(15));
  }

  public RequestSettings withHeaderCarriesFallbacks(boolean carries) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, carries, trustRewriteHeader,
        maxRequestDuration);
  }
}
