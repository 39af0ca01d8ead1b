package io.llmgw.extproc.observe;

import io.llmgw.extproc.tokens.TokenizeOutcome;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.ToLongFunction;

/** In-process prompt tokenizing ({@code hf:}): how each request's ended; all but tokenized are matched approximately. */
public final class TokenizerMetrics {
  private TokenizerMetrics() {
  }

  public static void register(PrometheusRegistry registry, ToLongFunction<TokenizeOutcome> counts) {
    CounterWithCallback.builder().name("llmgw_prompt_tokenizations_total")
        .help("Requests whose prompt was rendered and tokenized in process with the model's own files, by outcome "
            + "(tokenized, busy, timeout, refused, multimodal, failed); all but tokenized are routed on the "
            + "approximate prefix index")
        .labelNames("outcome").callback(cb -> {
          for (TokenizeOutcome o : TokenizeOutcome.values()) {
            cb.call(counts.applyAsLong(o), o.label());
          }
        }).register(registry);
  }
}
