package io.llmgw.scraper;

import io.llmgw.picker.PodMetrics;

/**
 * The latest knowledge about one endpoint. {@code healthy} is false from the first failed scrape until one succeeds;
 * the last good metrics are kept for display but the picker will not route on them.
 */
public record ScrapeState(PodMetrics metrics, ServedModels models, boolean healthy, int consecutiveFailures,
    String lastError) {
  public static final ScrapeState INITIAL = new ScrapeState(PodMetrics.unknown(), ServedModels.UNKNOWN, false, 0,
      "not scraped yet");
}
