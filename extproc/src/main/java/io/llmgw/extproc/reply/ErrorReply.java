package io.llmgw.extproc.reply;

import io.llmgw.api.ClientText;
import io.llmgw.api.DropReason;
import io.llmgw.api.ErrorCode;
import java.time.Duration;

/**
 * A request the EPP answers itself, with an OpenAI-style JSON error body (the status table in docs/architecture.md).
 *
 * @param retryAfterSeconds seconds a client should wait before trying again ({@code Retry-After}); 0 for none
 */
public record ErrorReply(int status, ErrorCode code, String message, int retryAfterSeconds) {
  /**
   * An answer whose {@code Retry-After} follows from its status: 1 s for every 429 and the 503s of a gateway at one of
   * its limits, none for the others.
   */
  public ErrorReply(int status, ErrorCode code, String message) {
    this(status, code, message, status == 429 || code == ErrorCode.TOO_MANY_STREAMS
        || code == ErrorCode.BODY_BUDGET_EXHAUSTED ? 1 : 0);
  }

  public static ErrorReply badRequest(ErrorCode code, String message) {
    return new ErrorReply(400, code, message);
  }

  public static ErrorReply modelNotFound(String model) {
    return new ErrorReply(404, ErrorCode.MODEL_NOT_FOUND,
        "The model " + ClientText.quote(model) + " does not exist or is not served by this gateway");
  }

  public static ErrorReply tooLarge(int limit) {
    return new ErrorReply(413, ErrorCode.REQUEST_TOO_LARGE,
        "request body is larger than the gateway's limit of " + limit + " bytes");
  }

  public static ErrorReply saturated(String model) {
    return new ErrorReply(429, ErrorCode.POOL_SATURATED,
        "the pool serving " + ClientText.quote(model) + " is saturated and this use case is sheddable; retry later");
  }

  public static ErrorReply objectiveUnattainable(String model) {
    return new ErrorReply(429, ErrorCode.OBJECTIVE_UNATTAINABLE,
        "no endpoint serving " + ClientText.quote(model)
            + " is predicted to meet its latency objective and this use case is "
            + "sheddable; retry later");
  }

  public static ErrorReply queueFull(String reason) {
    return new ErrorReply(429, ErrorCode.QUEUE_FULL, reason + "; retry later");
  }

  public static ErrorReply evicted(int evictedPriority, int byPriority) {
    return new ErrorReply(429, ErrorCode.EVICTED,
        "this request (priority " + evictedPriority + ") was waiting for capacity and gave its place in the full queue "
            + "to a request of priority " + byPriority + "; retry later");
  }

  /**
   * A request that waited its time to live in the queue. As llm-d answers it: 429 while the pool has endpoints (there
   * is capacity, contended: back off and retry), 503 when it has none (nothing came up to serve it).
   */
  public static ErrorReply expired(Duration ttl, boolean poolHasEndpoints) {
    String waited = "no capacity became free for this request within " + ttl.toSeconds() + " s";
    return poolHasEndpoints ? new ErrorReply(429, ErrorCode.QUEUE_TIMEOUT, waited + "; retry later")
        : unavailable(ErrorCode.NO_READY_ENDPOINT, waited + " and its pool has no ready endpoint");
  }

  /** A request waited for a pool scaled to zero and no pod of it became ready in time. */
  public static ErrorReply expiredAtZero(Duration ttl) {
    return unavailable(ErrorCode.NO_READY_ENDPOINT, "the pool is scaled to zero and no pod of it became ready within "
        + ttl.toSeconds() + " s (the capacity plan asked for one); retry later");
  }

  /** A bug or an unexpected failure in the gateway itself: the client learns only that. */
  public static ErrorReply internal() {
    return new ErrorReply(500, ErrorCode.INTERNAL_ERROR, "the gateway failed to process the request");
  }

  public static ErrorReply tooManyStreams(int limit) {
    return unavailable(ErrorCode.TOO_MANY_STREAMS,
        "the gateway has its limit of " + limit + " requests open; retry later");
  }

  public static ErrorReply bodyBudgetExhausted(long limit) {
    return unavailable(ErrorCode.BODY_BUDGET_EXHAUSTED, "the gateway holds its limit of " + limit
        + " bytes of unfinished request bodies; retry later");
  }

  public static ErrorReply requestTimeout(Duration idle) {
    return new ErrorReply(408, ErrorCode.REQUEST_TIMEOUT,
        "the request stopped arriving: nothing came for " + idle.toMillis() + " ms before its body was complete");
  }

  public static ErrorReply unavailable(ErrorCode code, String message) {
    return new ErrorReply(503, code, message);
  }

  /** A path the gateway does not serve (a request without a body that is neither a model list nor inference). */
  public static ErrorReply noSuchEndpoint(String method, String path) {
    return new ErrorReply(404, ErrorCode.NOT_FOUND, "the gateway serves no " + ClientText.clean(method)
        + " " + ClientText.quote(path) + "; it routes POST /v1/chat/completions, /v1/completions, /v1/embeddings and "
        + "/v1/responses by their body's model, and answers GET /v1/models and /v1/models/{model}");
  }

  public String json() {
    return code.error(message).json();
  }

  /** Why, in llm-d's header ({@link DropReason}): the code's own reason. */
  public String dropReason() {
    return code.dropReason();
  }
}
