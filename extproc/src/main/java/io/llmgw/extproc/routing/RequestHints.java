package io.llmgw.extproc.routing;

import io.llmgw.api.EppProtocol;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * What a request's headers say about how to route it, parsed once. A header with a value that cannot be read is a
 * client error (400 naming the header), never silently ignored.
 *
 * @param modelRewrite {@code x-gateway-model-name-rewrite}, or null
 * @param objectiveName {@code x-gateway-inference-objective}, or null
 * @param fairnessId {@code x-gateway-inference-fairness-id}, or null (the route is the flow)
 * @param sloTtftMs {@code x-slo-ttft-ms}, or 0
 * @param maxLatency {@code x-llmgw-max-latency-ms}, or null
 * @param minAccuracy {@code x-llmgw-min-accuracy}, or null
 * @param maxCost {@code x-llmgw-max-cost}, or null
 * @param subset the proxy's subset hint, or null
 * @param arrivalNanos when the request reached the EPP ({@code System.nanoTime}); queueing counts against objectives
 */
public record RequestHints(String modelRewrite, String objectiveName, String fairnessId, long sloTtftMs,
    Duration maxLatency, Double minAccuracy, Double maxCost, Set<String> subset, long arrivalNanos) {

  /** A header's value that cannot be used. */
  public static final class BadHeader extends Exception {
    BadHeader(String header, String value, String expected) {
      super("header " + header + ": '" + value + "' is not " + expected);
    }
  }

  public static RequestHints parse(Map<String, String> headers, Set<String> subset, long arrivalNanos)
      throws BadHeader {
    long slo = positiveMillis(headers, EppProtocol.SLO_TTFT_MS);
    long maxLatencyMs = positiveMillis(headers, EppProtocol.MAX_LATENCY_MS);
    return new RequestHints(blankToNull(headers.get(EppProtocol.MODEL_REWRITE)),
        blankToNull(headers.get(EppProtocol.OBJECTIVE)), blankToNull(headers.get(EppProtocol.FAIRNESS_ID)), slo,
        maxLatencyMs == 0 ? null : Duration.ofMillis(maxLatencyMs),
        number(headers, EppProtocol.MIN_ACCURACY, 1, "1"), number(headers, EppProtocol.MAX_COST, 1e9, "1e9"), subset,
        arrivalNanos);
  }

  /** Milliseconds since the request arrived. */
  public long waitedMillis() {
    return (System.nanoTime() - arrivalNanos) / 1_000_000;
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
