package io.llmgw.scraper;

/** Observes scrape outcomes (the EPP turns them into its own metrics and log lines). */
public interface ScrapeListener {
  ScrapeListener NONE = new ScrapeListener() {};

  default void scraped(String address, int skippedLines) {}

  /**
   * The pod's KV cache holds this many blocks, as it says ({@code vllm:cache_config_info}, read at the model list's pace
   * while KV events are followed; only said when it says).
   */
  default void kvCacheBlocks(String address, long blocks) {}

  default void failed(String address, String what, String error) {}
}
