package io.llmgw.extproc.cacheprediction.core;

/** Who hears each request's prediction against the engine's report (the metrics). */
public interface CachePredictionEvents {
  void observed(CachePrediction prediction);

  /** A pod's predictions missed {@code cause} as the reason, when it could be told. */
  default void missing(CachePrediction prediction, MissCause cause) {}
}
