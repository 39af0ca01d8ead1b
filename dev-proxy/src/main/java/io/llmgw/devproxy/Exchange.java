package io.llmgw.devproxy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP request through the dev proxy, as Envoy handles it with our filter: headers and body go to the EPP
 * (FULL_DUPLEX_STREAMED), the EPP's mutations and re-emitted body go upstream to the destination it chose, down the
 * fallback list on connect failure, reset before response, or 503; the response streams back through the EPP with
 * the served endpoint in metadata. All state lives on the client connection's event loop.
 */
final class Exchange {
  private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

  private final DevProxy proxy;
  private final HttpServerRequest in;
  private final HttpServerResponse out;
  private final Context context;
  private final MultiMap upstreamHeaders = MultiMap.caseInsensitiveMultiMap();
  private Buffer upstreamBody = Buffer.buffer();
  private StreamObserver<ProcessingRequest> epp;
  /** The replica the current ext_proc stream goes to, and that stream's number: answers of an earlier one are dropped. */
  private EppReplicas.Replica replica;
  private int generation;
  private int eppRetries;
  private final Set<EppReplicas.Replica> tried = new HashSet<>();
  /** The request's frames as sent, replayed on another replica or passed through; dropped once upstream is asked. */
  private List<ProcessingRequest> requestFrames = new ArrayList<>();
  /** The current stream has answered something: the EPP has picked, a retry elsewhere would pick again. */
  private boolean answered;
  /** The EPP is gone and the route fails open: every frame gets the answer of a processor that changes nothing. */
  private boolean bypass;
  private boolean upstreamStarted;
  /**
   * Response frames the EPP has not answered, kept until it answers the first body frame: until then nothing of the body
   * reached the client, and a route that fails open can replay them without the EPP. Null after.
   */
  private List<ProcessingRequest> responseFrames = new ArrayList<>();
  private final UpstreamLeg leg;
  private int responseStatus;
  private MultiMap responseHeaders;
  private long requestBytes;
  private boolean requestHasBody;
  private boolean finished;

  Exchange(DevProxy proxy, HttpServerRequest in, Context context) {
    this.proxy = proxy;
    this.in = in;
    this.out = in.response();
    this.context = context;
    this.leg = new UpstreamLeg(this, proxy, in);
  }

  void start() {
    HttpHeads.forUpstream(in.headers(), upstreamHeaders);
    List<Map.Entry<String, String>> headers = HttpHeads.forEpp(in);
    String length = in.getHeader("content-length");
    requestHasBody = in.getHeader("transfer-encoding") != null || (length != null && !length.trim().equals("0"));
    openStream();
    toEpp(ExtProcMessages.requestHeaders(headers, !requestHasBody));
    out.closeHandler(v -> clientGone());
    if (requestHasBody) {
      in.handler(this::requestChunk);
      in.endHandler(v -> {
        if (!finished) {
          toEpp(ExtProcMessages.requestBody(ByteString.EMPTY, true));
        }
      });
    }
  }

  private void openStream() {
    replica = proxy.epps().pick(tried);
    tried.add(replica);
    replica.open.incrementAndGet();
    answered = false;
    epp = replica.stub.process(new EppObserver(this, context, ++generation, replica));
  }

  /** To the EPP, or, once it is gone from a route that fails open, through a processor that changes nothing. */
  private void toEpp(ProcessingRequest r) {
    boolean requestPhase = r.hasRequestHeaders() || r.hasRequestBody();
    if (requestPhase && requestFrames != null) {
      requestFrames.add(r);
    }
    if (bypass) {
      onEpp(ExtProcMessages.passThrough(r));
      return;
    }
    if ((r.hasResponseHeaders() || r.hasResponseBody()) && responseFrames != null) {
      responseFrames.add(r);
    }
    epp.onNext(r);
  }

  /**
   * The ext_proc stream failed. Before the EPP answered, the request is replayed on another replica (Envoy's gRPC
   * retry_policy with the cluster's other hosts); after, or with no retry left, a fail-open route goes on without the
   * EPP while no response bytes are in its hands, and a fail-closed one ends as Envoy ends it (500, or a reset).
   */
  void eppFailed(int stream, Status status) {
    if (finished || stream != generation) {
      return;
    }
    if (!answered && requestFrames != null && eppRetries++ < proxy.settings().maxRetries()) {
      proxy.epps().failed(replica);
      openStream();
      for (ProcessingRequest r : requestFrames) {
        epp.onNext(r);
      }
      return;
    }
    if (proxy.settings().failure().failsOpen(in.path()) && responseFrames != null) {
      LOG.warn("{} {}: ext_proc stream to {} failed ({}); the route fails open, going on without the EPP",
          in.method(), in.path(), replica, status.getCode());
      failOpen();
      return;
    }
    LOG.warn("{} {}: ext_proc stream to {} failed: {}{}", in.method(), in.path(), replica, status.getCode(),
        status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
    localReply(500, ErrorCode.ENDPOINT_PICKER_FAILED, "the endpoint picker failed: " + status.getCode());
  }

  private void failOpen() {
    bypass = true;
    if (!upstreamStarted) {
      // the EPP's re-emitted body may be partial: the request goes on with the client's own frames
      upstreamBody = Buffer.buffer();
      boolean picked = answered;
      for (ProcessingRequest r : List.copyOf(requestFrames)) {
        if (!(picked && r.hasRequestHeaders())) {
          onEpp(ExtProcMessages.passThrough(r));
        }
      }
    } else {
      for (ProcessingRequest r : List.copyOf(responseFrames)) {
        onEpp(ExtProcMessages.passThrough(r));
      }
    }
  }

  private void requestChunk(Buffer chunk) {
    if (finished) {
      return;
    }
    requestBytes += chunk.length();
    if (requestBytes > proxy.settings().maxBodyBytes()) {
      // Envoy's buffer limit: the body could not be kept for retries
      cancelEpp();
      localReply(413, ErrorCode.REQUEST_TOO_LARGE,
          "request body exceeds the proxy's limit of " + proxy.settings().maxBodyBytes() + " bytes");
      return;
    }
    toEpp(ExtProcMessages.requestBody(UnsafeByteOperations.unsafeWrap(chunk.getBytes()), false));
  }

  private void onEpp(ProcessingResponse r) {
    if (finished) {
      return;
    }
    answered = true;
    switch (r.getResponseCase()) {
      case IMMEDIATE_RESPONSE -> immediate(r.getImmediateResponse());
      case REQUEST_HEADERS -> {
        CommonResponse common = r.getRequestHeaders().getResponse();
        ExtProcMessages.apply(common.getHeaderMutation(), upstreamHeaders);
        List<String> fromMetadata = ExtProcMessages.destinations(r.getDynamicMetadata());
        String header = upstreamHeaders.get(EppProtocol.DESTINATION);
        leg.destinations(fromMetadata != null ? fromMetadata
            : header == null ? List.of() : ExtProcMessages.split(header));
        if (!requestHasBody) {
          connectUpstream();
        }
      }
      case REQUEST_BODY -> {
        BodyResponse body = r.getRequestBody();
        if (body.getResponse().getBodyMutation().hasStreamedResponse()) {
          var streamed = body.getResponse().getBodyMutation().getStreamedResponse();
          upstreamBody.appendBytes(streamed.getBody().toByteArray());
          if (streamed.getEndOfStream()) {
            connectUpstream();
          }
        }
      }
      case RESPONSE_HEADERS -> {
        if (responseFrames != null && !bypass) {
          responseFrames.removeIf(ProcessingRequest::hasResponseHeaders);
        }
        if (responseHeaders != null) {
          HttpHeads.writeResponseHead(out, responseStatus, responseHeaders, r.getResponseHeaders().getResponse());
        }
      }
      case RESPONSE_BODY -> {
        if (!bypass) {
          responseFrames = null;
        }
        CommonResponse common = r.getResponseBody().getResponse();
        if (common.getBodyMutation().hasStreamedResponse()) {
          var streamed = common.getBodyMutation().getStreamedResponse();
          if (!streamed.getBody().isEmpty()) {
            out.write(Buffer.buffer(streamed.getBody().toByteArray()));
          }
          if (streamed.getEndOfStream()) {
            finished = true;
            out.end();
            if (!bypass) {
              epp.onCompleted();
            }
          }
        }
      }
      default -> {} // trailers: ours carry none
    }
  }

  /** Sends the EPP's body to the next destination; gives up with 503 when none is left. */
  private void connectUpstream() {
    if (finished) {
      return;
    }
    upstreamStarted = true;
    requestFrames = null;
    if (bypass) {
      leg.orDefault(proxy.settings().failure().defaultEndpoint());
    }
    leg.send(upstreamHeaders, upstreamBody);
  }

  boolean finished() {
    return finished;
  }

  /** The upstream answered: a 503 goes on to the next fallback while one is left. */
  void upstreamResponse(String target, HttpClientResponse resp) {
    if (resp.statusCode() == 503 && leg.hasNext()) {
      LOG.info("{} {}: upstream {} answered 503; trying the next fallback", in.method(), in.uri(), target);
      resp.body().onComplete(ignored -> connectUpstream());
      return;
    }
    responseStatus = resp.statusCode();
    responseHeaders = MultiMap.caseInsensitiveMultiMap().addAll(resp.headers());
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    headers.add(Map.entry(":status", Integer.toString(responseStatus)));
    headers.addAll(ExtProcMessages.entries(resp.headers()));
    toEpp(ExtProcMessages.responseHeaders(headers, false, target));
    resp.handler(chunk -> {
      if (!finished) {
        toEpp(ExtProcMessages.responseBody(UnsafeByteOperations.unsafeWrap(chunk.getBytes()), false));
      }
    });
    resp.endHandler(v -> {
      if (!finished) {
        toEpp(ExtProcMessages.responseBody(ByteString.EMPTY, true));
      }
    });
    resp.exceptionHandler(t -> {
      if (!finished) {
        LOG.info("{} {}: upstream {} broke off mid-response ({})", in.method(), in.uri(), target, t.toString());
        finished = true;
        cancelEpp();
        out.reset(); // this stream only: an HTTP/2 client's other requests share the connection
      }
    });
  }

  /** A response the proxy makes itself (no upstream left) still passes through the EPP, as Envoy's local replies do. */
  void syntheticResponse(int status, ErrorCode code, String message) {
    responseStatus = status;
    responseHeaders = MultiMap.caseInsensitiveMultiMap().add("content-type", "application/json");
    toEpp(ExtProcMessages.responseHeaders(List.of(Map.entry(":status", Integer.toString(status)),
        Map.entry("content-type", "application/json")), false, null));
    toEpp(ExtProcMessages.responseBody(ByteString.copyFromUtf8(code.error(message).json()), true));
  }

  private void immediate(ImmediateResponse r) {
    finished = true;
    if (!bypass) {
      epp.onCompleted();
    }
    HttpHeads.writeImmediate(out, r);
  }

  /** Answers without the EPP: it failed, or the request cannot be kept. failure_mode_allow is false, as in envoy.yaml. */
  private void localReply(int status, ErrorCode code, String message) {
    finished = true;
    leg.reset();
    if (!out.headWritten() && !out.ended()) {
      out.setStatusCode(status).putHeader("content-type", "application/json").end(code.error(message).json());
    } else if (!out.ended()) {
      out.reset();
    }
  }

  private void clientGone() {
    if (finished) {
      return;
    }
    finished = true;
    cancelEpp();
    leg.reset();
  }

  private void cancelEpp() {
    if (epp != null && !bypass) {
      epp.onError(Status.CANCELLED.withDescription("downstream request ended").asRuntimeException());
    }
  }

  /** An answer of ext_proc stream {@code stream}, on the loop; one of an earlier stream is dropped. */
  void eppAnswered(int stream, ProcessingResponse r) {
    if (stream == generation && !bypass) {
      onEpp(r);
    }
  }

  /** Stream {@code stream} ended without an error, on the loop: before the response completed, that is a failure. */
  void eppCompleted(int stream) {
    if (!finished && stream == generation && !bypass) {
      localReply(500, ErrorCode.ENDPOINT_PICKER_FAILED,
          "the endpoint picker closed the stream before the response completed");
    }
  }
}
