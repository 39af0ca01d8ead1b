package io.llmgw.cli;

import io.llmgw.api.cli.Converters;
import io.llmgw.extproc.RequestSettings;
import io.llmgw.extproc.server.WireHooks;
import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Option;

/** What one request may be: its size, its time, the streams open at once, what is explained and traced. */
final class RequestOptions {
  @Option(names = "--max-body-bytes",
      description = "Larger request bodies are answered 413 (default: ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  @Option(names = {"--destination-fallbacks", "--header-fallbacks"},
      description = "Name the primary endpoint, then its fallbacks, in both the destination header and the envoy.lb "
          + "metadata, for proxies that walk the list (Envoy's override_host policy, the dev proxy). Off: both carry "
          + "the primary alone, which Envoy's ORIGINAL_DST cluster needs.")
  boolean destinationFallbacks;

  @Option(names = "--max-request-duration", converter = Converters.PositiveDuration.class,
      description = "A routed request still counted in flight after this long stops counting against its pod "
          + "(default: ${DEFAULT-VALUE}).")
  Duration maxRequestDuration;

  @Option(names = "--explain-every", defaultValue = "" + RequestSettings.DEFAULT_EXPLAIN_EVERY,
      description = "Keep one decision in this many explained at /admin/decisions and on the status page; 0 keeps "
          + "only those of requests sent with an x-llmgw-explain header (default: ${DEFAULT-VALUE}).")
  int explainEvery;

  @Option(names = "--request-idle-timeout", converter = Converters.PositiveDuration.class,
      description = "A request still arriving that sends nothing for this long is answered 408; a stream that sends "
          + "not even its headers is ended (default: ${DEFAULT-VALUE}).")
  Duration requestIdleTimeout;

  @Option(names = "--max-streams",
      description = "ext_proc streams open at once; more are answered 503 (default: ${DEFAULT-VALUE}).")
  int maxStreams;

  @Option(names = "--max-buffered-bytes",
      description = "Bytes of unfinished request bodies all streams together may hold; a body that would go over is "
          + "answered 503 (default: a quarter of the heap, here ${DEFAULT-VALUE}).")
  long maxBufferedBytes;

  @Option(names = "--trust-rewrite-header",
      description = "Obey x-gateway-model-name-rewrite, among the route's own targets. Only when a proxy in front sets "
          + "it and drops the client's: by default a client's rewrite header is ignored.")
  boolean trustRewriteHeader;

  @Option(names = "--otlp-endpoint", paramLabel = "URL", description = "Send OpenTelemetry traces of the requests "
      + "(a span per request, one per phase, the decision as attributes) to this OTLP/HTTP collector, e.g. "
      + "http://127.0.0.1:4318; the caller's traceparent is followed and the routed request carries the request's "
      + "span (default: no traces).")
  URI otlpEndpoint;

  @Option(names = "--trace-sample-ratio", defaultValue = "0.1", paramLabel = "0..1", description = "With "
      + "--otlp-endpoint: the share of requests traced that come without a sampled traceparent (one that comes with "
      + "one is traced as its caller chose) (default: ${DEFAULT-VALUE}).")
  double traceSampleRatio;

  RequestSettings requests(RequestSettings defaults, WireHooks hooks) {
    return new RequestSettings(maxBodyBytes, defaults.bytesPerToken(), defaults.maxFallbacks(), destinationFallbacks,
        trustRewriteHeader, maxRequestDuration, maxStreams, maxBufferedBytes, requestIdleTimeout, explainEvery,
        defaults.traces().to(otlpEndpoint, traceSampleRatio)).withHooks(hooks);
  }
}
