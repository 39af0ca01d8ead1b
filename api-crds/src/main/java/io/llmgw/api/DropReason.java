package io.llmgw.api;

/**
 * Why the gateway answered a request itself, in llm-d's words ({@code x-llm-d-request-dropped-reason}): llm-d's
 * values where llm-d refuses for the same reason, ours (same {@code rejected-} style) where it has none. Clients and
 * dashboards written for llm-d's router read the same header, and the batch service decides from it how a line waits;
 * the OpenAI error code in the body ({@link OpenAiError}) says more, for people.
 */
public final class DropReason {
  public static final String HEADER = "x-llm-d-request-dropped-reason";
  public static final String SATURATED = "rejected-saturated";
  public static final String NO_ENDPOINTS = "rejected-no-endpoints";
  public static final String TTL_EXPIRED = "rejected-ttl-expired";
  public static final String EVICTED = "evicted";
  /** The tenant's budget is spent for now: the request fits once it refills. */
  public static final String TENANT_BUDGET = "rejected-tenant-budget";
  /** The request alone needs more than the tenant's whole budget: no wait makes it fit. */
  public static final String TENANT_QUOTA = "rejected-tenant-quota";
  public static final String UNAUTHENTICATED = "rejected-unauthenticated";
  public static final String BAD_REQUEST = "rejected-bad-request";
  public static final String UNKNOWN_MODEL = "rejected-unknown-model";
  public static final String ADAPTER_UNAVAILABLE = "rejected-adapter-unavailable";
  public static final String GATEWAY_LIMIT = "rejected-gateway-limit";
  public static final String INTERNAL = "rejected-internal";

  private DropReason() {}
}
