package io.llmgw.scraper;

/** An endpoint to scrape: {@code ip:port} and its engine. */
public record ScrapeTarget(String address, Engine engine) {}
