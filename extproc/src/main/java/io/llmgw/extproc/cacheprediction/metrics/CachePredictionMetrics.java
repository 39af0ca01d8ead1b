package io.llmgw.extproc.cacheprediction.metrics;

import io.llmgw.api.LogSampler;
import io.llmgw.extproc.cacheprediction.core.CachePrediction;
import io.llmgw.extproc.cacheprediction.core.CachePredictionEvents;
import io.llmgw.extproc.cacheprediction.core.MissCause;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The prefix cache as the gateway predicted it against what the engines reported, per pool: predicted, reported and
 * matched tokens (precision is matched / predicted, recall matched / reported) and each request's error as a share
 * of its prompt.
 */
public final class CachePredictionMetrics implements CachePredictionEvents {
  private static final Logger LOG = LoggerFactory.getLogger(CachePredictionMetrics.class);
  private final Counter predicted;
  private final Counter reported;
  private final Counter matched;
  private final Histogram error;
  private final Counter misses;
  private final LogSampler sampled = LogSampler.everyTenSeconds();

  public CachePredictionMetrics(PrometheusRegistry registry) {
    predicted = Counter.builder().name("llmgw_prefix_predicted_cached_tokens_total")
        .help("Prompt tokens the gateway predicted cached on the pod it picked, for requests whose engine reported "
            + "its cache (cached_tokens)")
        .labelNames("pool").register(registry);
    reported = Counter.builder().name("llmgw_prefix_reported_cached_tokens_total")
        .help("Prompt tokens the engines reported cached (cached_tokens) for those requests").labelNames("pool")
        .register(registry);
    matched = Counter.builder().name("llmgw_prefix_matched_cached_tokens_total")
        .help("Of those, the tokens both predicted and reported cached (precision: matched / predicted)")
        .labelNames("pool").register(registry);
    error = Histogram.builder().name("llmgw_prefix_prediction_error_ratio")
        .help("How far each request's predicted cached tokens were from the engine's report, as a share of its prompt")
        .labelNames("pool").classicUpperBounds(0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1).register(registry);
    misses = Counter.builder().name("llmgw_prefix_prediction_misses_total")
        .help("Runs of three predictions in a row on one pod off by more than a quarter of the prompt, by the cause "
            + "the gateway could tell (events_lost, over_predicted, under_predicted)")
        .labelNames("pool", "cause").register(registry);
  }

  @Override
  public void missing(CachePrediction p, MissCause cause) {
    misses.labelValues(p.pool(), cause.label()).inc();
    long skipped = sampled.admit(cause.label());
    if (skipped >= 0) {
      LOG.warn("prefix cache predictions in pool {} keep missing ({}): {}{}", p.pool(), p.explain(), cause.why(),
          LogSampler.leftOut(skipped));
    }
  }

  @Override
  public void observed(CachePrediction p) {
    predicted.labelValues(p.pool()).inc(p.predictedTokens());
    reported.labelValues(p.pool()).inc(p.reportedTokens());
    matched.labelValues(p.pool()).inc(p.matchedTokens());
    error.labelValues(p.pool()).observe(p.errorShare());
  }
}
