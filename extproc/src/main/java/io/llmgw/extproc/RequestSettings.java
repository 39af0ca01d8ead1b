package io.llmgw.extproc;

import io.llmgw.api.BodyLimit;

import io.llmgw.api.SettingException;
import io.llmgw.extproc.observe.tracing.TraceSettings;
import io.llmgw.extproc.server.WireHooks;
import java.time.Duration;

/**
 * How one request is read and answered.
 *
 * @param maxBodyBytes larger request bodies are answered 413
 * @param bytesPerToken how a prompt's size in tokens is estimated from its body's bytes (for the latency model)
 * @param maxFallbacks endpoints named after the primary, for the proxy to retry on
 * @param destinationFallbacks name the fallbacks after the primary, in the destination header and the {@code envoy.lb}
 *     metadata alike (the protocol forbids two different values); off, both carry the primary alone
 * @param trustRewriteHeader obey {@code x-gateway-model-name-rewrite} (among the route's targets): only when a proxy in
 *     front sets it and drops the client's
 * @param maxRequestDuration a routed request still counted in flight after this long stops counting (its stream was
 *     kept open after the routing answer, or the response never ended)
 * @param maxStreams ext_proc streams open at once; more are answered 503
 * @param maxBufferedBytes bytes of unfinished request bodies all streams together may hold; a body that would go over
 *     is answered 503
 * @param idleTimeout a stream whose request is still arriving and that sends nothing for this long is answered 408 (or
 *     ended, when not even its headers came): it holds a stream slot and perhaps buffered bytes
 * @param explainEvery one decision in this many is kept explained ({@code /admin/decisions}); 0 keeps only those of
 *     requests that ask ({@code x-llmgw-explain})
 * @param traces whether and where requests are traced (OpenTelemetry); off by default
 * @param hooks what llm-d's and GIE's tools may ask to see in the answers; off by default
 */
public record RequestSettings(int maxBodyBytes, int bytesPerToken, int maxFallbacks, boolean destinationFallbacks,
    boolean trustRewriteHeader, Duration maxRequestDuration, int maxStreams, long maxBufferedBytes,
    Duration idleTimeout, int explainEvery, TraceSettings traces, WireHooks hooks) {
  public static final int DEFAULT_EXPLAIN_EVERY = 16;

  public RequestSettings {
    if (maxBodyBytes < 1024) {
      throw new SettingException("requests.maxBodyBytes", "must be at least 1024");
    }
    if (maxStreams < 1) {
      throw new SettingException("requests.maxStreams", "must be at least 1");
    }
    if (maxBufferedBytes < maxBodyBytes) {
      throw new SettingException("requests.maxBufferedBytes", "must be at least requests.maxBodyBytes");
    }
    if (maxRequestDuration.toMillis() < 1_000) {
      throw new SettingException("requests.maxRequestDuration", "must be at least 1s");
    }
    if (idleTimeout.toMillis() < 100) {
      throw new SettingException("requests.idleTimeout", "must be at least 100ms");
    }
    if (explainEvery < 0) {
      throw new SettingException("requests.explainEvery", "must be 0 (only requests that ask) or more");
    }
    if (bytesPerToken < 1 || maxFallbacks < 0 || maxFallbacks > 10) {
      throw new IllegalArgumentException("bytes per token must be at least 1 and fallbacks within 0..10");
    }
  }

  public RequestSettings(int maxBodyBytes, int bytesPerToken, int maxFallbacks, boolean destinationFallbacks,
      boolean trustRewriteHeader, Duration maxRequestDuration, int maxStreams, long maxBufferedBytes,
      Duration idleTimeout, int explainEvery, TraceSettings traces) {
    this(maxBodyBytes, bytesPerToken, maxFallbacks, destinationFallbacks, trustRewriteHeader, maxRequestDuration,
        maxStreams, maxBufferedBytes, idleTimeout, explainEvery, traces, WireHooks.NONE);
  }

  public RequestSettings withHooks(WireHooks h) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, destinationFallbacks, trustRewriteHeader,
        maxRequestDuration, maxStreams, maxBufferedBytes, idleTimeout, explainEvery, traces, h);
  }

  public static RequestSettings defaults() {
    int maxBody = BodyLimit.DEFAULT_BYTES;
    // a quarter of the heap for bodies still arriving, and never less than one body of the largest size
    long buffered = Math.max(maxBody, Runtime.getRuntime().maxMemory() / 4);
    return new RequestSettings(maxBody, 4, 2, false, false, Duration.ofMinutes(15), 10_000, buffered,
        Duration.ofSeconds(30), DEFAULT_EXPLAIN_EVERY, TraceSettings.off());
  }

  public RequestSettings withDestinationFallbacks(boolean listed) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, listed, trustRewriteHeader,
        maxRequestDuration, maxStreams, maxBufferedBytes, idleTimeout, explainEvery, traces, hooks);
  }

  public RequestSettings withStreamLimits(int streams, long bufferedBytes) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, destinationFallbacks, trustRewriteHeader,
        maxRequestDuration, streams, bufferedBytes, idleTimeout, explainEvery, traces, hooks);
  }

  public RequestSettings withIdleTimeout(Duration timeout) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, destinationFallbacks, trustRewriteHeader,
        maxRequestDuration, maxStreams, maxBufferedBytes, timeout, explainEvery, traces, hooks);
  }

  public RequestSettings withTraces(TraceSettings t) {
    return new RequestSettings(maxBodyBytes, bytesPerToken, maxFallbacks, destinationFallbacks, trustRewriteHeader,
        maxRequestDuration, maxStreams, maxBufferedBytes, idleTimeout, explainEvery, t, hooks);
  }
}
