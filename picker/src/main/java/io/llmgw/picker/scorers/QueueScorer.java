package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/**
 * Shorter waiting queue is better, min–max normalised over the candidates (GIE queue-scorer). The queue is the pod's
 * report plus what this gateway sent since ({@link EndpointState#queued}), so requests between two scrapes spread.
 */
public final class QueueScorer implements Scorer {
  public static final String TYPE = "queue-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      int q = candidates.get(i).queued();
      out[i] = q;
      min = Math.min(min, q);
      max = Math.max(max, q);
    }
    for (int i = 0; i < n; i++) {
      out[i] = max == min ? 1.0 : (max - out[i]) / (max - min);
    }
  }
}
