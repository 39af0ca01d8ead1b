package io.llmgw.scraper;

import io.llmgw.scraper.kvevents.KvEventSettings;
import java.time.Duration;

/**
 * @param interval how often each endpoint's {@code /metrics} is polled (default 50 ms)
 * @param modelsInterval how often {@code /v1/models} is polled (residency changes less often)
 * @param timeout per request; a scrape that takes longer fails and the endpoint leaves picking
 * @param maxConcurrent scrapes in flight at once across all endpoints
 * @param kvEvents where the pods publish their KV-cache events, which the EPP subscribes to; off by default
 */
public record ScrapeSettings(Duration interval, Duration modelsInterval, Duration timeout, int maxConcurrent,
    KvEventSettings kvEvents) {
  public ScrapeSettings(Duration interval, Duration modelsInterval, Duration timeout, int maxConcurrent) {
    this(interval, modelsInterval, timeout, maxConcurrent, KvEventSettings.OFF);
  }

  public static ScrapeSettings defaults() {
    return new ScrapeSettings(Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(1), 256);
  }

  public ScrapeSettings withInterval(Duration d) {
    return new ScrapeSettings(d, modelsInterval, timeout, maxConcurrent, kvEvents);
  }

  public ScrapeSettings withKvEvents(KvEventSettings k) {
    return new ScrapeSettings(interval, modelsInterval, timeout, maxConcurrent, k);
  }
}
