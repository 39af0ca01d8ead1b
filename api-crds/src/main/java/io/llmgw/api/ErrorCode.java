package io.llmgw.api;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every code the gateway answers an OpenAI error with (the EPP, the batch service's forwarded answers, the dev proxy):
 * its wire name, OpenAI's error type for it, and the reason llm-d's header gives a caller ({@link DropReason}), so
 * that no answer pairs a code with another type or reason than this table.
 */
public enum ErrorCode {
  // @formatter:off: one code a row, as a table
  MISSING_MODEL("missing_model", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  INVALID_BODY("invalid_body", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  INVALID_HEADER("invalid_header", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  UNKNOWN_OBJECTIVE("unknown_objective", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  REQUEST_TOO_LARGE("request_too_large", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  REQUEST_TIMEOUT("request_timeout", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  METHOD_NOT_ALLOWED("method_not_allowed", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  NOT_FOUND("not_found", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  MODEL_NOT_FOUND("model_not_found", Type.INVALID_REQUEST, DropReason.UNKNOWN_MODEL),
  MISSING_API_KEY("missing_api_key", Type.INVALID_REQUEST, DropReason.UNAUTHENTICATED),
  INVALID_API_KEY("invalid_api_key", Type.INVALID_REQUEST, DropReason.UNAUTHENTICATED),
  INVALID_TENANT("invalid_tenant", Type.INVALID_REQUEST, DropReason.UNAUTHENTICATED),
  POOL_SATURATED("pool_saturated", Type.RATE_LIMIT, DropReason.SATURATED),
  OBJECTIVE_UNATTAINABLE("objective_unattainable", Type.RATE_LIMIT, DropReason.SATURATED),
  QUEUE_FULL("queue_full", Type.RATE_LIMIT, DropReason.SATURATED),
  QUEUE_TIMEOUT("queue_timeout", Type.RATE_LIMIT, DropReason.TTL_EXPIRED),
  EVICTED("evicted", Type.RATE_LIMIT, DropReason.EVICTED),
  RATE_LIMIT_EXCEEDED("rate_limit_exceeded", Type.RATE_LIMIT, DropReason.TENANT_BUDGET),
  INSUFFICIENT_QUOTA("insufficient_quota", Type.INSUFFICIENT_QUOTA, DropReason.TENANT_QUOTA),
  NO_READY_ENDPOINT("no_ready_endpoint", Type.SERVER, DropReason.NO_ENDPOINTS),
  SUBSET_MISMATCH("subset_mismatch", Type.SERVER, DropReason.NO_ENDPOINTS),
  NO_PREFILL_POD("no_prefill_pod", Type.SERVER, DropReason.NO_ENDPOINTS),
  ADAPTER_UNAVAILABLE("adapter_unavailable", Type.SERVER, DropReason.ADAPTER_UNAVAILABLE),
  TOO_MANY_STREAMS("too_many_streams", Type.SERVER, DropReason.GATEWAY_LIMIT),
  BODY_BUDGET_EXHAUSTED("body_budget_exhausted", Type.SERVER, DropReason.GATEWAY_LIMIT),
  INTERNAL_ERROR("internal_error", Type.SERVER, DropReason.INTERNAL),
  UNSUPPORTED_BODY_MODE("unsupported_body_mode", Type.SERVER, DropReason.INTERNAL),
  // the batch service's own answers
  UNAUTHORIZED("unauthorized", Type.INVALID_REQUEST, DropReason.UNAUTHENTICATED),
  MISSING_TENANT("missing_tenant", Type.INVALID_REQUEST, DropReason.UNAUTHENTICATED),
  FILE_IN_USE("file_in_use", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  BATCH_NOT_CANCELLABLE("batch_not_cancellable", Type.INVALID_REQUEST, DropReason.BAD_REQUEST),
  // the dev proxy's own answers, as Envoy's local replies
  ENDPOINT_PICKER_FAILED("endpoint_picker_failed", Type.SERVER, DropReason.INTERNAL),
  NO_DESTINATION("no_destination", Type.SERVER, DropReason.NO_ENDPOINTS),
  NO_HEALTHY_UPSTREAM("no_healthy_upstream", Type.SERVER, DropReason.NO_ENDPOINTS);
  // @formatter:on

  /** OpenAI's error types: who is at fault. */
  public static final class Type {
    public static final String INVALID_REQUEST = "invalid_request_error";
    public static final String RATE_LIMIT = "rate_limit_error";
    public static final String INSUFFICIENT_QUOTA = "insufficient_quota";
    public static final String SERVER = "server_error";

    private Type() {}
  }

  private static final Map<String, ErrorCode> BY_WIRE = Arrays.stream(values())
      .collect(Collectors.toUnmodifiableMap(ErrorCode::wire, Function.identity()));

  private final String wire;
  private final String type;
  private final String dropReason;

  ErrorCode(String wire, String type, String dropReason) {
    this.wire = wire;
    this.type = type;
    this.dropReason = dropReason;
  }

  /** The code as the body's {@code error.code} carries it. */
  public String wire() {
    return wire;
  }

  /** OpenAI's {@code error.type} for it. */
  public String type() {
    return type;
  }

  /** The reason {@link DropReason#HEADER} gives for it. */
  public String dropReason() {
    return dropReason;
  }

  /** The code of this wire name, or {@code otherwise} for a name this table does not hold. */
  public static ErrorCode ofWire(String wire, ErrorCode otherwise) {
    return wire == null ? otherwise : BY_WIRE.getOrDefault(wire, otherwise);
  }

  /** The error body for this code. */
  public OpenAiError error(String message) {
    return error(message, null);
  }

  /** The error body for this code, naming the request field at fault. */
  public OpenAiError error(String message, String param) {
    return new OpenAiError(message, type, param, wire);
  }

  @Override
  public String toString() {
    return wire;
  }
}
