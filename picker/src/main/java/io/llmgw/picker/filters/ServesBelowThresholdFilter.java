package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickRequest;

/** Seed policy: the endpoint serves the model and the gateway has fewer than {@code threshold} pending for it there. */
public record ServesBelowThresholdFilter(int threshold) implements Filter {
  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    return e.metrics().serves(request.model()) && e.inFlight().forModel(request.model()) < threshold;
  }
}
