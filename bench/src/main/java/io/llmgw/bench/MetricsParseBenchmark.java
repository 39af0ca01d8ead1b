package io.llmgw.bench;

import io.llmgw.scraper.Engine;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one scrape costs the EPP once the page arrived: reading a vLLM-like 26 KiB {@code /metrics} page (the gauges we
 * read among eight histograms we skip) into pod metrics. The scraper does this for every pod every 50 ms, so it is the
 * EPP's largest background cost. {@code baseline} is one pass over the same text finding its line ends, measured in
 * the same run: the parser's cost is best read as a multiple of it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsParseBenchmark {
  final String page = ScrapeLoadRun.metricsPage();
  final Instant now = Instant.parse("2026-01-01T00:00:00Z");

  @Benchmark
  public Object parse() {
    return Engine.VLLM.parse(page, now);
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
