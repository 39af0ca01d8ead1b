package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/** Shorter waiting queue is better, min–max normalised over the candidates (GIE queue-scorer). */
public final class QueueScorer implements Scorer {
  public static final String TYPE = "queue-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (EndpointState e : candidates) {
      int q = e.metrics().waitingQueue();
      min = Math.min(min, q);
      max = Math.max(max, q);
    }
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = max == min ? 1.0 : (double) (max - candidates.get(i).metrics().waitingQueue()) / (max - min);
    }
  }
}
