package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue 13: any {@code /metrics} page — garbage, a page cut anywhere, labels and values mangled — parses without an
 * exception into at most one sample per line, and a page that does not say how loaded the pod is never passes as a
 * report (it would read as an idle pod and draw traffic).
 */
class MetricsTextProperties {
  static final Instant NOW = Instant.parse("2026-11-24T00:00:00Z");

  @Property(seed = "1306")
  void anyPageParsesWithoutExceptionAndOnlyALoadReportCounts(@ForAll("pages") String page) {
    ParsedMetrics parsed = PrometheusTextParser.parse(page, Engine.VLLM.metricNames());
    long lines = page.lines().count();
    assertThat(parsed.byName().values().stream().mapToLong(List::size).sum()).isLessThanOrEqualTo(lines);
    assertThat(parsed.skippedLines()).isBetween(0, (int) lines);
    boolean reports = Engine.VLLM.reportsLoad(parsed);
    if (reports) {
      var m = Engine.VLLM.parse(page, NOW);
      assertThat(m.waitingQueue()).isNotNegative();
      assertThat(m.running()).isNotNegative();
      assertThat(m.kvCacheUsage()).isBetween(0.0, 1.0);
    } else {
      assertThat(Engine.VLLM.loadMetricNames()).allMatch(n -> parsed.get(n).isEmpty());
    }
    Statistics.collect(reports ? "a load report" : "not a load report",
        parsed.skippedLines() > 0 ? "lines skipped" : "no line skipped");
  }

  /** The byte parser (with its eight-byte pass-over) reads every page exactly as the string parser it replaced. */
  @Property(seed = "2811")
  void theByteParserReadsWhatTheStringParserRead(@ForAll("pages") String page) {
    for (Engine engine : Engine.values()) {
      ParsedMetrics bytes = PrometheusTextParser.parse(page, engine.metricNames());
      ParsedMetrics reference = StringTextParser.parse(page, engine.metricNames());
      assertThat(bytes.byName()).as(page).isEqualTo(reference.byName());
      assertThat(bytes.skippedLines()).as(page).isEqualTo(reference.skippedLines());
    }
  }

  @Provide
  Arbitrary<String> pages() {
    Arbitrary<String> valid = Combinators.combine(Arbitraries.integers().between(-5, 500),
        Arbitraries.integers().between(-5, 500), Arbitraries.doubles().between(-1, 2),
        Arbitraries.of("a", "a,b", "", "x\"y", "a\\nb"))
        .as((w, r, kv, adapters) -> FakeModelServer.vllmText(w, r, kv, 4, List.of(adapters), List.of()));
    Arbitrary<String> mangled = Combinators.combine(valid, Arbitraries.integers().between(0, 800),
        Arbitraries.strings().ofMaxLength(12), Arbitraries.of("insert", "truncate", "replace"))
        .as((v, at, s, how) -> {
          int i = Math.min(at, v.length());
          return switch (how) {
            case "insert" -> v.substring(0, i) + s + v.substring(i);
            case "truncate" -> v.substring(0, i);
            default -> v.substring(0, i) + s + v.substring(Math.min(v.length(), i + s.length()));
          };
        });
    Arbitrary<String> special = Arbitraries.of("vllm:num_requests_waiting NaN", "vllm:num_requests_waiting +Inf",
        "vllm:num_requests_waiting{model_name=\"m\"} -Inf", "vllm:kv_cache_usage_perc 1e308",
        "vllm:num_requests_running{", "vllm:num_requests_running{a=\"b\"} 3 1700000000000 extra", "\u0000\u0001",
        "# TYPE vllm:num_requests_waiting gauge", "vllm:num_requests_waiting_total 5", "vllm:num_requests_waitin 3",
        "vllm:num 1", "vllm:gpu_prefix_cache_queries_total 9", "  vllm:num_requests_running 2",
        "vllm:kv_cache_usage_perc 0.5\r", "sglang:num_queue_reqs 4", "sglang:num_queue_reqs_x 4",
        "nv_trt_llm_request_metrics{request_type=\"waiting\"} 2",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 3",
        "vllm:lora_requests_info{max_lora=\"4\",running_lora_adapters=\"é\\\"x\"} 1");
    return Arbitraries.frequencyOf(Tuple.of(3, valid), Tuple.of(5, mangled), Tuple.of(2, Arbitraries.strings()
        .ofMaxLength(400)), Tuple.of(2, special.list().ofMaxSize(5).map(l -> String.join("\n", l))));
  }

  /** The adapter list of {@code vllm:lora_requests_info}, read without a regex or stream, names what a split did. */
  @Property(seed = "2811")
  void anAdapterListReadsAsSplittingOnCommasAndTrimming(@ForAll("adapterLists") String value) {
    java.util.Set<String> bySplit = new java.util.HashSet<>();
    for (String part : value.split(",")) {
      if (!part.isBlank()) {
        bySplit.add(part.trim());
      }
    }
    assertThat(Engine.csv(value)).isEqualTo(bySplit);
  }

  @Provide
  Arbitrary<String> adapterLists() {
    return Arbitraries.strings().withChars("ab, \t,,").ofMaxLength(12);
  }
}
