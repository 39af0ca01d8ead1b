package io.llmgw.api;

/**
 * Names of the Endpoint Picker Protocol (docs/architecture.md, "Wire contracts"): headers and metadata keys shared by the EPP and the proxies that
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
  /** The flow a request belongs to for fairness within its priority band; default: its route. */
  public static final String FAIRNESS_ID = "x-gateway-inference-fairness-id";
  /** llm-d's name for the same flow ({@link #FAIRNESS_ID} wins when a request carries both). */
  public static final String LLMD_FAIRNESS_ID = "x-llm-d-inference-fairness-id";
  /** A per-request time-to-first-token objective in milliseconds: its deadline for EDF and for pod filtering. */
  public static final String SLO_TTFT_MS = "x-slo-ttft-ms";
  /** llm-d's name for the same objective ({@link #SLO_TTFT_MS} wins when a request carries both). */
  public static final String LLMD_SLO_TTFT_MS = "x-llm-d-slo-ttft-ms";
  /**
   * GIE's conformance hook, honoured only with {@code --conformance-test-hooks}: the candidates a request may be sent
   * to, {@code ip} (any of its ports) or {@code ip:port}, comma-separated.
   */
  public static final String TEST_ENDPOINT_SELECTION = "test-epp-endpoint-selection";
  /** GIE's conformance hook on the response: the endpoint that served it, as the proxy reported it. */
  public static final String TEST_SERVED_ENDPOINT = "x-conformance-test-served-endpoint";
  /** With {@code --emit-endpoint-scores}, in {@code envoy.lb}: each candidate's weighted score, {@code ip:port=score}. */
  public static final String ENDPOINT_SCORES = "x-gateway-destination-endpoint-scores";
  /** Requirements for a model-less route (INFaaS): time to first token, declared accuracy, price per 1k tokens. */
  public static final String MAX_LATENCY_MS = "x-llmgw-max-latency-ms";
  public static final String MIN_ACCURACY = "x-llmgw-min-accuracy";
  public static final String MAX_COST = "x-llmgw-max-cost";
  /** On the response of a model-less route: the variant that served it, and the requirements it could not meet. */
  public static final String VARIANT = "x-llmgw-variant";
  public static final String REQUIREMENTS_UNMET = "x-llmgw-requirements-unmet";
  /**
   * Set by the EPP on every routed request: the LLMRoute ({@code namespace/name}) that matched. Envoy configured over
   * our xDS routes on it, so each use case gets its own Envoy route, cluster and statistics.
   */
  public static final String ROUTE = "x-llmgw-route";

  /**
   * The tenant, as the operator's own authentication in the proxy sets it (Envoy Gateway's API-key or JWT policies);
   * trusted only when the EPP is told to ({@code --tenant-header}), and removed from client requests by every shipped
   * proxy configuration before that authentication runs.
   */
  public static final String TENANT = "x-llmgw-tenant";
  /** The tenant a request is sent for, honoured only from a key that may act for others (the batch service's). */
  public static final String ON_BEHALF_OF = "x-llmgw-on-behalf-of";

  /**
   * Set by the EPP on a request whose prompt a prefill pod computes (disaggregated serving, llm-d's protocol): that
   * pod's {@code host:port}, which the decode pod's side asks for the prompt's KV cache. Removed from every client
   * request: a client that could set it would make the decode pod call any address it named.
   */
  public static final String PREFILLER = "x-prefiller-host-port";

  private EppProtocol() {}

  /** Client-supplied headers that would steer routing; never trusted, always removed. */
  public static boolean isSpoofable(String name) {
    return name.startsWith(DESTINATION) || name.equals(ROUTE) || name.equals(PREFILLER);
  }
}
