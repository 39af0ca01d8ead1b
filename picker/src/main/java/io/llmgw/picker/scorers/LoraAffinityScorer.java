package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PodMetrics;
import io.llmgw.picker.Scorer;
import java.util.List;

/**
 * GIE lora-affinity-scorer: the adapter in the running batch (or the base model served) 1.0; a free adapter slot 0.8;
 * requests already queued for the adapter 0.6; otherwise 0. Activity, not residency: every pod may hold an adapter in
 * host memory, but only the batch's {@code max_lora} slots decide whether a request runs without waiting.
 */
public final class LoraAffinityScorer implements Scorer {
  public static final String TYPE = "lora-affinity-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    String model = request.model();
    for (int i = 0; i < candidates.size(); i++) {
      PodMetrics m = candidates.get(i).metrics();
      if (m.inBatch(model)) {
        out[i] = 1.0;
      } else if (m.waitingAdapters().contains(model)) {
        out[i] = 0.6;
      } else if (m.maxLoras() > 0 && m.hasFreeAdapterSlot()) {
        out[i] = 0.8;
      } else {
        out[i] = 0.0;
      }
    }
  }
}
