package io.llmgw.extproc.reply;

/**
 * Why the EPP answered a request itself, in llm-d's words ({@code x-llm-d-request-dropped-reason}): llm-d's values
 * where llm-d refuses for the same reason, ours (same {@code rejected-} style) where it has none. Clients and
 * dashboards written for llm-d's router read the same header; the OpenAI error code in the body says more.
 */
public final class DropReason {
  public static final String HEADER = "x-llm-d-request-dropped-reason";
  public static final String SATURATED = "rejected-saturated";
  public static final String NO_ENDPOINTS = "rejected-no-endpoints";
  public static final String TTL_EXPIRED = "rejected-ttl-expired";
  public static final String EVICTED = "evicted";
  public static final String TENANT_BUDGET = "rejected-tenant-budget";
  public static final String UNAUTHENTICATED = "rejected-unauthenticated";
  public static final String BAD_REQUEST = "rejected-bad-request";
  public static final String UNKNOWN_MODEL = "rejected-unknown-model";
  public static final String ADAPTER_UNAVAILABLE = "rejected-adapter-unavailable";
  public static final String GATEWAY_LIMIT = "rejected-gateway-limit";
  public static final String INTERNAL = "rejected-internal";

  private DropReason() {}

  /** The reason for an answer, from its error code first and its status second. */
  public static String of(ErrorReply reply) {
    return switch (reply.code()) {
      case "pool_saturated", "objective_unattainable", "queue_full" -> SATURATED;
      case "no_ready_endpoint", "subset_mismatch", "no_prefill_pod" -> NO_ENDPOINTS;
      case "queue_timeout" -> TTL_EXPIRED;
      case "evicted" -> EVICTED;
      case "rate_limit_exceeded", "insufficient_quota", "exceeds_budget" -> TENANT_BUDGET;
      case "model_not_found" -> UNKNOWN_MODEL;
      case "adapter_unavailable" -> ADAPTER_UNAVAILABLE;
      case "too_many_streams", "body_budget_exhausted" -> GATEWAY_LIMIT;
      default -> switch (reply.status()) {
        case 401, 403 -> UNAUTHENTICATED;
        case 429 -> TENANT_BUDGET;
        case 503 -> NO_ENDPOINTS;
        default -> reply.status() >= 500 ? INTERNAL : BAD_REQUEST;
      };
    };
  }
}
