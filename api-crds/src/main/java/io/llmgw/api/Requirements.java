package io.llmgw.api;

import java.time.Duration;

/**
 * What a caller of a model-less route needs, from the route's defaults or the request's {@code x-llmgw-*} headers.
 *
 * @param maxLatency time to first token the caller accepts, or null for any
 * @param minAccuracy lowest declared accuracy accepted (0: any)
 * @param maxCostPer1kTokens highest declared price accepted (infinite: any)
 */
public record Requirements(Duration maxLatency, double minAccuracy, double maxCostPer1kTokens) {
  public static final Requirements NONE = new Requirements(null, 0, Double.POSITIVE_INFINITY);

  /** These requirements with each of {@code other}'s that is set taking precedence. */
  public Requirements overriddenBy(Duration latency, Double accuracy, Double cost) {
    return new Requirements(latency != null ? latency : maxLatency, accuracy != null ? accuracy : minAccuracy,
        cost != null ? cost : maxCostPer1kTokens);
  }
}
