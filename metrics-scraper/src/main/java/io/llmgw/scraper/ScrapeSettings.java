package io.llmgw.scraper;

import io.llmgw.picker.PodMetrics;

import io.llmgw.scraper.kvevents.KvEventSettings;
import java.time.Duration;

/**
 * @param interval how often each endpoint's {@code /metrics} is polled (default 50 ms)
 * @param modelsInterval how often {@code /v1/models} is polled (residency changes less often)
 * @param timeout per request; a scrape that takes longer fails and the endpoint leaves picking
 * @param maxConcurrent scrapes in flight at once across all endpoints
 * @param kvEvents where the pods publish their KV-cache events, which the EPP subscribes to; off by default
 * @param adapterWarmWindow how long an adapter a pod reported running or waiting counts as warm there after its
 *     reports stop naming it (default 30 s; see {@link PodMetrics#warm})
 */
public record ScrapeSettings(Duration interval, Duration modelsInterval, Duration timeout, int maxConcurrent,
    KvEventSettings kvEvents, Duration adapterWarmWindow) {
  public static final Duration DEFAULT_ADAPTER_WARM_WINDOW = Duration.ofSeconds(30);

  public ScrapeSettings {
    if (adapterWarmWindow.isNegative()) {
      throw new IllegalArgumentException("the adapter warm window cannot be negative, got " + adapterWarmWindow);
    }
  }

  public ScrapeSettings(Duration interval, Duration modelsInterval, Duration timeout, int maxConcurrent) {
    this(interval, modelsInterval, timeout, maxConcurrent, KvEventSettings.OFF, DEFAULT_ADAPTER_WARM_WINDOW);
  }

  public static ScrapeSettings defaults() {
    return new ScrapeSettings(Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(1), 256);
  }

  public ScrapeSettings withInterval(Duration d) {
    return new ScrapeSettings(d, modelsInterval, timeout, maxConcurrent, kvEvents, adapterWarmWindow);
  }

  public ScrapeSettings withAdapterWarmWindow(Duration d) {
    return new ScrapeSettings(interval, modelsInterval, timeout, maxConcurrent, kvEvents, d);
  }

  public ScrapeSettings withKvEvents(KvEventSettings k) {
    return new ScrapeSettings(interval, modelsInterval, timeout, maxConcurrent, k, adapterWarmWindow);
  }
}
