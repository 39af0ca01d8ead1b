package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickRequest;
import java.time.Clock;
import java.time.Duration;

/** Drops endpoints whose last scrape failed or whose metrics are older than {@code staleAfter}. */
public final class FreshMetricsFilter implements Filter {
  private final Clock clock;
  private final long staleAfterMillis;

  public FreshMetricsFilter(Clock clock, Duration staleAfter) {
    this.clock = clock;
    this.staleAfterMillis = staleAfter.toMillis();
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    return e.scrapeHealthy() && clock.millis() - e.metrics().updatedAt().toEpochMilli() <= staleAfterMillis;
  }
}
