package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/** Fewer requests in flight from this gateway is better (Envoy's LEAST_REQUEST, without metrics). */
public final class LeastRequestScorer implements Scorer {
  public static final String TYPE = "least-request-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = 1.0 / (1 + candidates.get(i).inFlight().total());
    }
  }
}
