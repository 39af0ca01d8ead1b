package io.llmgw.scraper;

/** Observes scrape outcomes (the EPP turns them into its own metrics and log lines). */
public interface ScrapeListener {
  ScrapeListener NONE = new ScrapeListener() {};

  default void scraped(String address, int skippedLines) {}

  /** The pod's KV cache holds this many blocks, as its last scrape said (only said when it says). */
  default void kvCacheBlocks(String address, long blocks) {}

  default void failed(String address, String what, String error) {}
}
