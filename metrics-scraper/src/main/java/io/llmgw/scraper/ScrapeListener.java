package io.llmgw.scraper;

/** Observes scrape outcomes (the EPP turns them into its own metrics and log lines). */
public interface ScrapeListener {
  ScrapeListener NONE = new ScrapeListener() {};

  default void scraped(String address, int skippedLines) {}

  default void failed(String address, String what, String error) {}
}
