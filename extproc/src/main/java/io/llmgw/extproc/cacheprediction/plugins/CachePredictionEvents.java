package io.llmgw.extproc.cacheprediction.plugins;

import io.llmgw.extproc.cacheprediction.core.CachePrediction;

/** Who hears each request's prediction against the engine's report (the metrics). */
public interface CachePredictionEvents {
  void observed(CachePrediction prediction);
}
