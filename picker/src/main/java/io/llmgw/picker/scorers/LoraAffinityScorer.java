package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PodMetrics;

/**
 * GIE lora-affinity-scorer: the adapter in the running batch (or the base model served), or this gateway's requests
 * for it in flight there, 1.0; the adapter run there lately and likely still in its GPU slot ({@link PodMetrics#warm}),
 * or loaded there lately by this gateway, 0.9; requests queued for it 0.6; a free adapter slot 0.8; otherwise 0. Activity, not
 * residency: every pod may list an adapter, but only the batch's {@code max_lora} slots decide whether a request runs
 * without waiting.
 */
public final class LoraAffinityScorer implements EndpointScorer {
  public static final String TYPE = "lora-affinity-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public double score(PickRequest request, EndpointState endpoint) {
    PodMetrics m = endpoint.metrics();
    String model = request.model();
    if (m.inBatch(model)) {
      return 1.0;
    }
    if (m.waitingAdapters().contains(model)) {
      return 0.6;
    }
    if (endpoint.adapterActive(model)) {
      return endpoint.inFlight().forModel(model) > 0 ? 1.0 : 0.9;
    }
    return m.maxLoras() > 0 && m.hasFreeAdapterSlot() ? 0.8 : 0.0;
  }
}
