package io.llmgw.extproc.server;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.body.ResponseModelRewriter;
import io.llmgw.extproc.body.UsageSniffer;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;

/**
 * The response side of one exchange: every chunk passes through, with the model name rewritten back when the request
 * was rewritten, a model-less route's variant named in headers, token usage read on the way.
 */
final class ResponseRelay {
  /** The answer to response headers that need no change: the same immutable message every time. */
  private static final ProcessingResponse UNTOUCHED_HEADERS = Frames.responseHeaders(
      CommonResponse.getDefaultInstance());

  private final boolean fullDuplex;
  private ResponseModelRewriter rewriter;
  private UsageSniffer usage;
  private String status = "0";

  ResponseRelay(boolean fullDuplex) {
    this.fullDuplex = fullDuplex;
  }

  /**
   * @param status the response's {@code :status}, or null
   * @param contentType its {@code content-type}, or null
   * @param ctx the request, when it was routed (null: the response passes untouched)
   */
  ProcessingResponse headers(String status, String contentType, RequestContext ctx) {
    this.status = status == null ? "0" : status;
    usage = new UsageSniffer(contentType);
    if (ctx == null || ctx.choice().variant() == null && !ctx.rewritten() && ctx.decisionHeader() == null) {
      return UNTOUCHED_HEADERS;
    }
    Choice choice = ctx.choice();
    HeaderMutation.Builder mutation = HeaderMutation.newBuilder();
    if (ctx.decisionHeader() != null) {
      mutation.addSetHeaders(Frames.setHeader(DecisionLog.DECISION_HEADER, ctx.decisionHeader()));
    }
    if (ctx.rewritten()) {
      rewriter = new ResponseModelRewriter(choice.target(), ctx.requestedModel());
      mutation.addRemoveHeaders("content-length");
    }
    if (choice.variant() != null) {
      mutation.addSetHeaders(Frames.setHeader(EppProtocol.VARIANT, choice.target()));
      if (!choice.unmet().isEmpty()) {
        mutation.addSetHeaders(Frames.setHeader(EppProtocol.REQUIREMENTS_UNMET, String.join("; ", choice.unmet())));
      }
    }
    return Frames.responseHeaders(CommonResponse.newBuilder().setHeaderMutation(mutation).build());
  }

  ProcessingResponse body(HttpBody chunk) {
    boolean eos = chunk.getEndOfStream();
    if (usage != null) {
      usage.accept(chunk.getBody(), eos);
    }
    ByteString passed = rewriter == null ? chunk.getBody() : rewriter.apply(chunk.getBody(), eos || !fullDuplex);
    if (fullDuplex) {
      return Frames.streamedResponseBody(passed, eos);
    }
    return Frames.responseBody(rewriter == null ? CommonResponse.getDefaultInstance()
        : CommonResponse.newBuilder().setBodyMutation(Frames.replaceBody(passed)).build());
  }

  /** The response's HTTP status, {@code 0} before its headers. */
  String status() {
    return status;
  }

  /** What the response said of its tokens; null before its headers. */
  UsageSniffer usage() {
    return usage;
  }
}
