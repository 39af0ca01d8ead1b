package io.llmgw.extproc.server;

import com.google.protobuf.ByteString;
import io.llmgw.api.ErrorCode;
import io.llmgw.extproc.body.BodyProblem;
import io.llmgw.extproc.body.BodyScan;
import io.llmgw.extproc.body.ModelExtractor;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.reply.ErrorReply;

/**
 * A request body as it arrives: within the body limit and the streams' shared buffer budget, scanned for its model as
 * it comes, and kept for re-emission.
 */
final class BodyIntake {
  private final ModelExtractor extractor = new ModelExtractor();
  private final RequestBody body = new RequestBody();

  RequestBody body() {
    return body;
  }

  /** Takes the next chunk; null when taken, else the answer that refuses the request. */
  ErrorReply take(ByteString bytes, StreamDeps deps, StreamLimits.Slot slot) {
    if ((long) body.size() + bytes.size() > deps.maxBodyBytes()) {
      return ErrorReply.tooLarge(deps.maxBodyBytes());
    }
    if (!slot.reserve(bytes.size())) {
      return ErrorReply.bodyBudgetExhausted(deps.limits().maxBufferedBytes());
    }
    body.append(bytes);
    extractor.feed(bytes);
    return null;
  }

  /** BUFFERED_PARTIAL sent what fit in the proxy's buffer and expects an answer now: the rest never reaches us. */
  ErrorReply cutByProxy() {
    return new ErrorReply(413, ErrorCode.REQUEST_TOO_LARGE,
        "request body is larger than the proxy's buffer (" + body.size() + " bytes arrived)");
  }

  /** The body ended: what the scan found. */
  BodyScan scanned() {
    return extractor.finish();
  }

  /** The 400 that refuses a body the scan could not route. */
  static ErrorReply refusal(BodyProblem p) {
    return ErrorReply.badRequest(p == BodyProblem.NO_MODEL ? ErrorCode.MISSING_MODEL : ErrorCode.INVALID_BODY,
        p.message());
  }
}
