package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickRequest;

/**
 * Seed policy: the endpoint holds the adapter and the gateway has fewer than {@code threshold} pending for it there.
 * Base-model requests never pass: packing buys nothing without an adapter to keep warm, so they go to the least busy
 * pod instead.
 */
public record ServesBelowThresholdFilter(int threshold) implements Filter {
  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    String model = request.model();
    return !e.metrics().baseModels().contains(model) && e.metrics().hasAdapter(model)
        && e.inFlight().forModel(model) < threshold;
  }
}
