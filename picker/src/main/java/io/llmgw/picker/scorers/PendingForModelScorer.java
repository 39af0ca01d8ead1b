package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/** The seed policy's packing rule: MORE of the gateway's pending requests for this model is better (up to the threshold). */
public final class PendingForModelScorer implements Scorer {
  private final int threshold;

  public PendingForModelScorer(int threshold) {
    this.threshold = threshold;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    for (int i = 0; i < candidates.size(); i++) {
      int pending = candidates.get(i).inFlight().forModel(request.model());
      out[i] = Math.min(1.0, (double) pending / threshold);
    }
  }
}
