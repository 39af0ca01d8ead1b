package io.llmgw.extproc.request;

import io.llmgw.api.ClientText;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.Objective;
import io.llmgw.api.RouteAdapter;
import io.llmgw.picker.latency.ObjectiveLimits;
import java.time.Duration;
import java.util.Map;

/**
 * What a request's headers say about how to route it, parsed once. A header with a value that cannot be read is a
 * client error (400 naming the header), never silently ignored.
 *
 * @param modelRewrite {@code x-gateway-model-name-rewrite}, or null
 * @param objectiveName {@code x-gateway-inference-objective}, or null
 * @param fairnessId {@code x-gateway-inference-fairness-id}, else llm-d's {@code x-llm-d-inference-fairness-id}, or
 *     null (the route is the flow)
 * @param sloTtftMs {@code x-slo-ttft-ms}, else llm-d's {@code x-llm-d-slo-ttft-ms}, or 0
 * @param maxLatency {@code x-llmgw-max-latency-ms}, or null
 * @param minAccuracy {@code x-llmgw-min-accuracy}, or null
 * @param maxCost {@code x-llmgw-max-cost}, or null
 */
public record RequestHints(String modelRewrite, String objectiveName, String fairnessId, long sloTtftMs,
    Duration maxLatency, Double minAccuracy, Double maxCost) {

  /**
   * The latency limits this request asks for: time to first token from {@code x-slo-ttft-ms}, else the route's
   * TimeToFirstToken objective; time per output token from its OutputTokenLatency objective.
   */
  public ObjectiveLimits limits(RouteAdapter route) {
    Objective ttft = route.objective(Objective.TTFT);
    Objective tpot = route.objective(Objective.TPOT);
    double ttftMs = sloTtftMs > 0 ? sloTtftMs : ttft == null ? 0 : ttft.latency().toMillis();
    return new ObjectiveLimits(ttftMs, tpot == null ? 0 : tpot.latency().toMillis());
  }

  /** A header's value that cannot be used. */
  public static final class BadHeader extends Exception {
    BadHeader(String header, String value, String expected) {
      super("header " + header + ": " + ClientText.quote(value) + " is not " + expected);
    }
  }

  public static RequestHints parse(Map<String, String> headers) throws BadHeader {
    long slo = positiveMillis(headers, EppProtocol.SLO_TTFT_MS);
    if (slo == 0) {
      slo = positiveMillis(headers, EppProtocol.LLMD_SLO_TTFT_MS);
    }
    String fairness = blankToNull(headers.get(EppProtocol.FAIRNESS_ID));
    long maxLatencyMs = positiveMillis(headers, EppProtocol.MAX_LATENCY_MS);
    return new RequestHints(blankToNull(headers.get(EppProtocol.MODEL_REWRITE)),
        blankToNull(headers.get(EppProtocol.OBJECTIVE)),
        fairness != null ? fairness : blankToNull(headers.get(EppProtocol.LLMD_FAIRNESS_ID)), slo,
        maxLatencyMs == 0 ? null : Duration.ofMillis(maxLatencyMs),
        number(headers, EppProtocol.MIN_ACCURACY, 1, "1"), number(headers, EppProtocol.MAX_COST, 1e9, "1e9"));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static long positiveMillis(Map<String, String> headers, String name) throws BadHeader {
    String v = blankToNull(headers.get(name));
    if (v == null) {
      return 0;
    }
    try {
      long ms = Long.parseLong(v);
      if (ms >= 1 && ms <= 3_600_000) {
        return ms;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new BadHeader(name, v, "a whole number of milliseconds between 1 and 3600000");
  }

  private static Double number(Map<String, String> headers, String name, double max, String maxText)
      throws BadHeader {
    String v = blankToNull(headers.get(name));
    if (v == null) {
      return null;
    }
    try {
      double d = Double.parseDouble(v);
      if (d >= 0 && d <= max) {
        return d;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new BadHeader(name, v, "a number between 0 and " + maxText);
  }
}
