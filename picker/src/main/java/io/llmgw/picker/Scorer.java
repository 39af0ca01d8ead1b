package io.llmgw.picker;

import java.util.List;
import java.util.Set;

/** Scores every candidate in [0, 1], higher is better; scores may depend on the whole candidate set (normalisation). */
public interface Scorer extends Plugin {
  void score(PickRequest request, List<EndpointState> candidates, double[] out);

  /** Told which endpoint the request went to, for scorers that learn from routing (prefix cache). */
  default void onPicked(PickRequest request, EndpointState primary) {}

  /** Told which endpoints still exist, so learned state for departed ones can go. */
  default void retainOnly(Set<String> addresses) {}
}
