package io.llmgw.bench;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Keeps {@code streams} ext_proc exchanges in flight on one channel as Envoy does (many streams over one HTTP/2
 * connection), driven from the response callbacks: no thread per stream, so the client costs little next to the server
 * it measures. Each exchange is the one {@link ExtProcLoadRun} describes; when one ends, the next starts.
 */
final class AsyncExchanges {
  private static final ProcessingRequest RESPONSE_HEADERS = ProcessingRequest.newBuilder().setResponseHeaders(
      HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
          .addHeaders(HeaderValue.newBuilder().setKey(":status").setRawValue(ByteString.copyFromUtf8("200")))
          .addHeaders(HeaderValue.newBuilder().setKey("content-type")
              .setRawValue(ByteString.copyFromUtf8("application/json")))))
      .build();
  private static final ProcessingRequest RESPONSE_BODY = ProcessingRequest.newBuilder().setResponseBody(
      HttpBody.newBuilder().setEndOfStream(true)
          .setBody(ByteString.copyFromUtf8("{\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":20}}")))
      .build();

  private final ExternalProcessorGrpc.ExternalProcessorStub stub;
  private final List<ProcessingRequest> requestFrames;
  private final Histogram answer;
  private final AtomicInteger remaining;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong done;
  private final AtomicLong errors;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();

  private AsyncExchanges(ExternalProcessorGrpc.ExternalProcessorStub stub, List<ByteString> body, int requests,
      Histogram answer, AtomicLong done, AtomicLong errors) {
    this.stub = stub;
    this.requestFrames = new java.util.ArrayList<>();
    requestFrames.add(ExtProcLoadRun.postHeaders());
    for (int i = 0; i < body.size(); i++) {
      requestFrames.add(ExtProcLoadRun.requestBody(body.get(i), i == body.size() - 1));
    }
    this.answer = answer;
    this.remaining = new AtomicInteger(requests);
    this.done = done;
    this.errors = errors;
  }

  /** Runs {@code requests} exchanges, {@code streams} at a time; bounded at 10 minutes. */
  static void run(ExternalProcessorGrpc.ExternalProcessorStub stub, int streams, int requests, List<ByteString> body,
      Histogram answer, AtomicLong done, AtomicLong errors) throws Exception {
    AsyncExchanges a = new AsyncExchanges(stub, body, requests, answer, done, errors);
    for (int i = 0; i < streams; i++) {
      a.next();
    }
    a.finished.get(10, TimeUnit.MINUTES);
  }

  private void next() {
    if (remaining.getAndDecrement() <= 0) {
      if (open.get() == 0) {
        finished.complete(null);
      }
      return;
    }
    open.incrementAndGet();
    new Exchange().start();
  }

  private void ended(boolean ok) {
    if (ok) {
      done.incrementAndGet();
    } else {
      errors.incrementAndGet();
    }
    open.decrementAndGet();
    next();
  }

  private final class Exchange implements StreamObserver<ProcessingResponse> {
    private StreamObserver<ProcessingRequest> out;
    private long lastBodyFrameNanos;
    private boolean routed;
    private boolean bodyEchoed;
    private boolean responseSent;
    private boolean over;

    void start() {
      out = stub.process(this);
      for (int i = 0; i < requestFrames.size(); i++) {
        if (i == requestFrames.size() - 1) {
          lastBodyFrameNanos = System.nanoTime();
        }
        out.onNext(requestFrames.get(i));
      }
    }

    /** Routing answer and the whole body back (in either order: the null EPP echoes first), then the response. */
    @Override
    public synchronized void onNext(ProcessingResponse r) {
      if (r.hasImmediateResponse()) {
        fail();
      } else if (r.hasRequestHeaders()) {
        routed = true;
        answer.recordValue(Math.max(1, (System.nanoTime() - lastBodyFrameNanos) / 1_000));
      } else if (r.hasRequestBody()) {
        bodyEchoed |= r.getRequestBody().getResponse().getBodyMutation().getStreamedResponse().getEndOfStream();
      } else if (r.hasResponseHeaders()) {
        out.onNext(RESPONSE_BODY);
      } else if (r.hasResponseBody() && !over) {
        over = true;
        out.onCompleted();
        ended(true);
      }
      if (routed && bodyEchoed && !responseSent) {
        responseSent = true;
        out.onNext(RESPONSE_HEADERS);
      }
    }

    private void fail() {
      if (!over) {
        over = true;
        out.onCompleted();
        ended(false);
      }
    }

    @Override
    public synchronized void onError(Throwable t) {
      fail();
    }

    @Override
    public void onCompleted() {}
  }
}
