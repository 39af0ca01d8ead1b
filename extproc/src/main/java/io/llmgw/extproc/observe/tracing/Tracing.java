package io.llmgw.extproc.observe.tracing;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * OpenTelemetry traces of the requests the EPP decides: a span per request, a child per phase, the decision as
 * attributes, exported over OTLP/HTTP in batches. The caller's W3C {@code traceparent} is read, so the request's span
 * joins the caller's trace (Envoy's, a client's), and the routed request carries the request span's own, so the model
 * server's spans (vLLM's {@code --otlp-traces-endpoint}) join it too. Off by default; when off, or when a request is
 * not sampled, {@link #begin} returns null and a request costs nothing more.
 */
public final class Tracing implements AutoCloseable {
  private static final String TRACEPARENT = "traceparent";
  private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private final SdkTracerProvider provider;
  private final Tracer tracer;
  private final double ratio;

  private Tracing(SdkTracerProvider provider, double ratio) {
    this.provider = provider;
    this.tracer = provider == null ? null : provider.get("io.llmgw.epp");
    this.ratio = ratio;
  }

  /** No traces. */
  public static Tracing off() {
    return new Tracing(null, 0);
  }

  public static Tracing of(TraceSettings settings) {
    if (!settings.enabled()) {
      return off();
    }
    OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
        .setEndpoint(settings.otlpEndpoint().resolve("/v1/traces").toString())
        .setTimeout(Duration.ofSeconds(10))
        .build();
    return new Tracing(SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
            io.opentelemetry.api.common.AttributeKey.stringKey("service.name"), settings.serviceName()))))
        // sampled in begin(), before the SDK is asked for anything: a span is only ever made for a request traced
        .setSampler(Sampler.alwaysOn())
        // bounded: when the collector is slow or gone, spans beyond the queue are dropped, never held
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).setMaxQueueSize(8192).build())
        .build(), settings.sampleRatio());
  }

  /**
   * A request's trace from now (its headers' arrival), or null when traces are off or this request is not sampled.
   *
   * @param headers the request's headers, names in lower case (its {@code traceparent} and {@code tracestate})
   */
  public RequestTrace begin(Map<String, String> headers, String requestId) {
    if (tracer == null || !sampled(headers.get(TRACEPARENT))) {
      return null;
    }
    Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HEADERS);
    Span span = tracer.spanBuilder("llmgw request").setParent(parent).setSpanKind(SpanKind.SERVER)
        .setAttribute("llmgw.request_id", requestId)
        .startSpan();
    if (!span.isRecording()) {
      return null;
    }
    return new RequestTrace(tracer, span);
  }

  /**
   * Parent-based sampling without the SDK, so that a request not traced costs a header lookup and, at most, one random
   * number: a well-formed {@code traceparent} is followed (its flags' sampled bit), anything else is sampled at the
   * ratio. The SDK's own sampler would first make the request a span and a trace id.
   */
  private boolean sampled(String traceparent) {
    if (traceparent != null && traceparent.length() == 55 && traceparent.startsWith("00-")
        && traceparent.charAt(35) == '-' && traceparent.charAt(52) == '-') {
      return (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
    }
    return ratio > 0 && ThreadLocalRandom.current().nextDouble() < ratio;
  }

  /** Sends what is still queued and stops. */
  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(10, TimeUnit.SECONDS);
    }
  }
}
