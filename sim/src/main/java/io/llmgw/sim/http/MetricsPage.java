package io.llmgw.sim.http;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The metrics page as vLLM serves it. {@code GET /metrics} is prometheus-fastapi-instrumentator's route, which writes
 * every series; anything under it ({@code /metrics/…}, vLLM's mount with the path regex {@code ^/metrics(?P<path>.*)$})
 * is prometheus_client's ASGI app, which writes only what its {@code name[]} parameters name (everything without
 * one). prometheus_client matches sample names; here a family is written whole when its name, or one of its samples'
 * names, is asked, which is the same page for the gauges a gateway asks for.
 */
final class MetricsPage {
  private static final PrometheusTextFormatWriter TEXT_FORMAT = PrometheusTextFormatWriter.create();
  private static final List<String> SAMPLE_SUFFIXES = List.of("", "_total", "_created", "_bucket", "_count", "_sum",
      "_info");

  static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;
  private static final String NOTHING = "";

  private MetricsPage() {}

  /**
   * The request's {@code name[]} values. A query that does not decode is no error, as with Python's {@code parse_qs}:
   * it names nothing, so the page is empty.
   */
  static List<String> askedNames(HttpServerRequest req) {
    try {
      return req.params().getAll("name[]");
    } catch (IllegalArgumentException e) {
      return List.of(NOTHING);
    }
  }

  /** The page for these {@code name[]} values (all series when there are none). */
  static byte[] render(PrometheusRegistry registry, List<String> names) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      TEXT_FORMAT.write(out, names.isEmpty() ? registry.scrape() : registry.scrape(asked(Set.copyOf(names))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static Predicate<String> asked(Set<String> names) {
    return family -> SAMPLE_SUFFIXES.stream().anyMatch(suffix -> names.contains(family + suffix));
  }
}
