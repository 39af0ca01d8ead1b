package io.llmgw.scraper;

import java.util.Collection;

/** What is known of each endpoint's metrics, which endpoints to watch, and who hears of each scrape. */
public interface ScrapeStates {
  /** Replaces the set of endpoints; what is known of endpoints that stay is kept. */
  void setTargets(Collection<ScrapeTarget> targets);

  /** The latest knowledge of one endpoint ({@link ScrapeState#INITIAL} before its first scrape). */
  ScrapeState state(String address);

  void addListener(ScrapeListener listener);
}
