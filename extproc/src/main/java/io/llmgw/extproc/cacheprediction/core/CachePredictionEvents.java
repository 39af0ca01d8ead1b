package io.llmgw.extproc.cacheprediction.core;

/** Who hears each request's prediction against the engine's report (the metrics). */
public interface CachePredictionEvents {
  void observed(CachePrediction prediction);
}
