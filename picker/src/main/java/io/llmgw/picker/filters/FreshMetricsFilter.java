package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** Drops endpoints whose last scrape failed or whose metrics are older than {@code staleAfter}. */
public final class FreshMetricsFilter implements Filter {
  public static final String TYPE = "fresh-metrics-filter";

  private final Clock clock;
  private final long staleAfterMillis;

  public FreshMetricsFilter(Clock clock, Duration staleAfter) {
    this.clock = clock;
    this.staleAfterMillis = staleAfter.toMillis();
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    return e.scrapeHealthy() && clock.millis() - e.metrics().updatedAt().toEpochMilli() <= staleAfterMillis;
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.NO_READY_ENDPOINT, candidates.size() == 1
        ? "its only endpoint has no fresh metrics" : "none of its " + candidates.size()
            + " endpoints has fresh metrics");
  }
}
