package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/** A scorer whose score for an endpoint does not depend on the other candidates (no normalisation over the set). */
interface EndpointScorer extends Scorer {
  double score(PickRequest request, EndpointState endpoint);

  @Override
  default void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = score(request, candidates.get(i));
    }
  }
}
