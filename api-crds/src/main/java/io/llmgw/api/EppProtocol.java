package io.llmgw.api;

/**
 * Names of the Endpoint Picker Protocol (DESIGN §3.1): headers and metadata keys shared by the EPP and the proxies that
 * speak to it.
 */
public final class EppProtocol {
  public static final String DESTINATION = "x-gateway-destination-endpoint";
  public static final String DESTINATION_SERVED = "x-gateway-destination-endpoint-served";
  public static final String DESTINATION_SUBSET = "x-gateway-destination-endpoint-subset";
  public static final String LB_NAMESPACE = "envoy.lb";
  public static final String SUBSET_HINT_NAMESPACE = "envoy.lb.subset_hint";
  public static final String REQUEST_ID = "x-request-id";
  public static final String MODEL_REWRITE = "x-gateway-model-name-rewrite";
  public static final String OBJECTIVE = "x-gateway-inference-objective";
  /**
   * Set by the EPP on every routed request: the LLMRoute ({@code namespace/name}) that matched. Envoy configured over
   * our xDS routes on it, so each use case gets its own Envoy route, cluster and statistics.
   */
  public static final String ROUTE = "x-llmgw-route";

  private EppProtocol() {}

  /** Client-supplied headers that would steer routing; never trusted, always removed. */
  public static boolean isSpoofable(String name) {
    return name.startsWith(DESTINATION) || name.equals(ROUTE);
  }
}
