package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;

/** Fewer requests in flight from this gateway is better (Envoy's LEAST_REQUEST, without metrics). */
public final class LeastRequestScorer implements EndpointScorer {
  public static final String TYPE = "least-request-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public double score(PickRequest request, EndpointState endpoint) {
    return 1.0 / (1 + endpoint.inFlight().total());
  }
}
