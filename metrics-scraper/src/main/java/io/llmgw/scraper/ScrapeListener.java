package io.llmgw.scraper;

/** Observes scrape outcomes (the EPP turns them into its own metrics and log lines). */
public interface ScrapeListener {
  ScrapeListener NONE = new ScrapeListener() {};

  default void scraped(String address, int skippedLines) {}

  /**
   * The pod's KV cache is this large, as it says ({@code vllm:cache_config_info}, read at the model list's pace; only
   * said when it says).
   */
  default void kvCacheSize(String address, KvCacheSize size) {}

  default void failed(String address, String what, String error) {}
}
