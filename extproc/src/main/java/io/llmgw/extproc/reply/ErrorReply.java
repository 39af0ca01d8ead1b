package io.llmgw.extproc.reply;

import io.llmgw.api.ClientText;
import io.llmgw.api.DropReason;
import io.llmgw.api.OpenAiError;

/**
 * A request the EPP answers itself, with an OpenAI-style JSON error body (the status table in docs/architecture.md).
 *
 * @param retryAfterSeconds seconds a client should wait before trying again ({@code Retry-After}); 0 for none
 */
public record ErrorReply(int status, String type, String code, String message, int retryAfterSeconds) {
  /**
   * An answer whose {@code Retry-After} follows from its status: 1 s for every 429 and the 503s of a gateway at one of
   * its limits, none for the others.
   */
  public ErrorReply(int status, String type, String code, String message) {
    this(status, type, code, message, status == 429 || code.equals("too_many_streams")
        || code.equals("body_budget_exhausted") ? 1 : 0);
  }

  public static ErrorReply badRequest(String code, String message) {
    return new ErrorReply(400, "invalid_request_error", code, message);
  }

  public static ErrorReply modelNotFound(String model) {
    return new ErrorReply(404, "invalid_request_error", "model_not_found",
        "The model " + ClientText.quote(model) + " does not exist or is not served by this gateway");
  }

  public static ErrorReply tooLarge(int limit) {
    return new ErrorReply(413, "invalid_request_error", "request_too_large",
        "request body is larger than the gateway's limit of " + limit + " bytes");
  }

  public static ErrorReply saturated(String model) {
    return new ErrorReply(429, "rate_limit_error", "pool_saturated",
        "the pool serving " + ClientText.quote(model) + " is saturated and this use case is sheddable; retry later");
  }

  public static ErrorReply objectiveUnattainable(String model) {
    return new ErrorReply(429, "rate_limit_error", "objective_unattainable",
        "no endpoint serving " + ClientText.quote(model)
            + " is predicted to meet its latency objective and this use case is "
            + "sheddable; retry later");
  }

  public static ErrorReply queueFull(String reason) {
    return new ErrorReply(429, "rate_limit_error", "queue_full", reason + "; retry later");
  }

  public static ErrorReply evicted(int evictedPriority, int byPriority) {
    return new ErrorReply(429, "rate_limit_error", "evicted",
        "this request (priority " + evictedPriority + ") was waiting for capacity and gave its place in the full queue "
            + "to a request of priority " + byPriority + "; retry later");
  }

  /**
   * A request that waited its time to live in the queue. As llm-d answers it: 429 while the pool has endpoints (there
   * is capacity, contended: back off and retry), 503 when it has none (nothing came up to serve it).
   */
  public static ErrorReply expired(java.time.Duration ttl, boolean poolHasEndpoints) {
    String waited = "no capacity became free for this request within " + ttl.toSeconds() + " s";
    return poolHasEndpoints ? new ErrorReply(429, "rate_limit_error", "queue_timeout", waited + "; retry later")
        : unavailable("no_ready_endpoint", waited + " and its pool has no ready endpoint");
  }

  /** A bug or an unexpected failure in the gateway itself: the client learns only that. */
  public static ErrorReply internal() {
    return new ErrorReply(500, "server_error", "internal_error", "the gateway failed to process the request");
  }

  public static ErrorReply tooManyStreams(int limit) {
    return unavailable("too_many_streams", "the gateway has its limit of " + limit + " requests open; retry later");
  }

  public static ErrorReply bodyBudgetExhausted(long limit) {
    return unavailable("body_budget_exhausted", "the gateway holds its limit of " + limit
        + " bytes of unfinished request bodies; retry later");
  }

  public static ErrorReply requestTimeout(java.time.Duration idle) {
    return new ErrorReply(408, "invalid_request_error", "request_timeout",
        "the request stopped arriving: nothing came for " + idle.toMillis() + " ms before its body was complete");
  }

  public static ErrorReply unavailable(String code, String message) {
    return new ErrorReply(503, "server_error", code, message);
  }

  /** A path the gateway does not serve (a request without a body that is neither a model list nor inference). */
  public static ErrorReply noSuchEndpoint(String method, String path) {
    return new ErrorReply(404, "invalid_request_error", "not_found", "the gateway serves no " + ClientText.clean(method)
        + " " + ClientText.quote(path) + "; it routes POST /v1/chat/completions, /v1/completions, /v1/embeddings and "
        + "/v1/responses by their body's model, and answers GET /v1/models and /v1/models/{model}");
  }

  public String json() {
    return new OpenAiError(message, type, null, code).json();
  }

  /** Why, in llm-d's header ({@link DropReason}): from the error code first and the status second. */
  public String dropReason() {
    return switch (code) {
      case "pool_saturated", "objective_unattainable", "queue_full" -> DropReason.SATURATED;
      case "no_ready_endpoint", "subset_mismatch", "no_prefill_pod" -> DropReason.NO_ENDPOINTS;
      case "queue_timeout" -> DropReason.TTL_EXPIRED;
      case "evicted" -> DropReason.EVICTED;
      case "rate_limit_exceeded" -> DropReason.TENANT_BUDGET;
      case "insufficient_quota" -> DropReason.TENANT_QUOTA;
      case "model_not_found" -> DropReason.UNKNOWN_MODEL;
      case "adapter_unavailable" -> DropReason.ADAPTER_UNAVAILABLE;
      case "too_many_streams", "body_budget_exhausted" -> DropReason.GATEWAY_LIMIT;
      default -> switch (status) {
        case 401, 403 -> DropReason.UNAUTHENTICATED;
        case 429 -> DropReason.SATURATED;
        case 503 -> DropReason.NO_ENDPOINTS;
        default -> status >= 500 ? DropReason.INTERNAL : DropReason.BAD_REQUEST;
      };
    };
  }
}
