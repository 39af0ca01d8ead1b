package io.llmgw.picker;

/**
 * An endpoint as the picker sees it for one decision: last reported metrics, whether its scrapes currently succeed,
 * and the gateway's own in-flight view (live counters, read during the decision).
 */
public record EndpointState(Endpoint endpoint, PodMetrics metrics, boolean scrapeHealthy, InFlight inFlight) {
  public String address() {
    return endpoint.address();
  }
}
