package io.llmgw.scraper;

import java.time.Duration;

/**
 * @param interval how often each endpoint's {@code /metrics} is polled (default 50 ms)
 * @param modelsInterval how often {@code /v1/models} is polled (residency changes less often)
 * @param timeout per request; a scrape that takes longer fails and the endpoint leaves picking
 * @param maxConcurrent scrapes in flight at once across all endpoints
 */
public record ScrapeSettings(Duration interval, Duration modelsInterval, Duration timeout, int maxConcurrent) {
  public static ScrapeSettings defaults() {
    return new ScrapeSettings(Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(1), 256);
  }

  public ScrapeSettings withInterval(Duration d) {
    return new ScrapeSettings(d, modelsInterval, timeout, maxConcurrent);
  }
}
