package io.llmgw.bench;

import io.llmgw.scraper.Engine;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * What one scrape costs the EPP once the page arrived: reading a vLLM-like 26 KiB {@code /metrics} page (the gauges we
 * read among eight histograms we skip) into pod metrics. The scraper does this for every pod every 50 ms, so it is the
 * EPP's largest background cost. {@code baseline} is one pass over the same text finding its line ends, measured in
 * the same run: the parser's cost is best read as a multiple of it.
 */
public class MetricsParseBenchmark extends MicroBenchmark {
  final String page = ScrapeLoadRun.metricsPage();
  final byte[] bytes = page.getBytes(StandardCharsets.UTF_8);
  final Instant now = Instant.parse("2026-01-01T00:00:00Z");

  @Benchmark
  public Object parse() {
    return Engine.VLLM.parse(bytes, 0, bytes.length, now); // the bytes as they came, as the scraper reads them
  }

  @Benchmark
  public int baseline() {
    int lines = 0;
    for (int i = page.indexOf('\n'); i >= 0; i = page.indexOf('\n', i + 1)) {
      lines++;
    }
    return lines;
  }
}
