package io.llmgw.extproc.flow.options;

import io.llmgw.api.cli.Converters;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.picker.SaturationSettings;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The serve command's flow-control and saturation flags. */
public final class FlowOptions {
  @Option(names = "--flow-control",
      description = "on: requests that find their pool saturated wait in the EPP (sheddable ones get 429); off: only "
          + "sheddable requests are held back (default: ${DEFAULT-VALUE}).")
  String flowControl;

  @Option(names = "--flow-fairness",
      description = "Within a priority band, across flows (the tenant, else x-gateway-inference-fairness-id, else the "
          + "route): tokens (the flow served the fewest tokens for its weight first), round-robin (one request each "
          + "in turn) or strict (the band's oldest first) (default: ${DEFAULT-VALUE}).")
  String fairness;

  @Option(names = "--flow-ordering",
      description = "Within a flow: fcfs or edf (earliest deadline first: x-slo-ttft-ms, else the route's "
          + "TimeToFirstToken objective) (default: ${DEFAULT-VALUE}).")
  String ordering;

  @Option(names = "--flow-ttl", converter = Converters.PositiveDuration.class,
      description = "How long a request may wait before it is answered 503 (default: ${DEFAULT-VALUE}).")
  Duration ttl;

  @Option(names = "--flow-max-requests",
      description = "Requests all bands may hold together (default: ${DEFAULT-VALUE}).")
  int maxRequests;

  @Option(names = "--flow-max-bytes",
      description = "Body bytes all bands may hold (default: ${DEFAULT-VALUE}).")
  long maxBytes;

  @Option(names = "--flow-max-band-requests",
      description = "Requests one priority may hold (default: ${DEFAULT-VALUE}).")
  int maxBandRequests;

  @Option(names = "--flow-max-band-bytes",
      description = "Body bytes one priority may hold (default: ${DEFAULT-VALUE}).")
  long maxBandBytes;

  @Option(names = "--saturation-queue-limit",
      description = "A pod is full at this many waiting requests (default: ${DEFAULT-VALUE}).")
  int queueLimit;

  @Option(names = "--saturation-kv-limit",
      description = "A pod is full at this KV-cache use, 0-1 (default: ${DEFAULT-VALUE}).")
  double kvLimit;

  @Option(names = "--saturation-stale-after", converter = Converters.PositiveDuration.class,
      description = "Metrics older than this count a pod as full (default: ${DEFAULT-VALUE}).")
  Duration staleAfter;

  /** @throws IllegalArgumentException naming the flag at fault */
  public FlowSettings flow() {
    FlowSettings.Fairness f = switch (fairness) {
      case "tokens" -> FlowSettings.Fairness.TOKENS;
      case "round-robin" -> FlowSettings.Fairness.ROUND_ROBIN;
      case "strict" -> FlowSettings.Fairness.STRICT;
      default ->
        throw new IllegalArgumentException("--flow-fairness takes tokens, round-robin or strict, not " + fairness);
    };
    FlowSettings.Ordering o = switch (ordering) {
      case "fcfs" -> FlowSettings.Ordering.FCFS;
      case "edf" -> FlowSettings.Ordering.EDF;
      default -> throw new IllegalArgumentException("--flow-ordering takes fcfs or edf, not " + ordering);
    };
    if (!flowControl.equals("on") && !flowControl.equals("off")) {
      throw new IllegalArgumentException("--flow-control takes on or off, not " + flowControl);
    }
    FlowSettings s = FlowSettings.defaults().with(f, o)
        .withLimits(ttl, maxRequests, maxBytes, maxBandRequests, maxBandBytes);
    return flowControl.equals("on") ? s : s.disabled();
  }

  public SaturationSettings saturation() {
    SaturationSettings s = new SaturationSettings(queueLimit, kvLimit, staleAfter);
    s.detector(Clock.systemUTC()); // validates
    return s;
  }
}
