package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import java.util.List;

/**
 * Keeps only the endpoints holding the adapter the request needs, as the lifecycle found (or loaded) them before
 * scheduling; every endpoint when the request needs no particular adapter.
 */
public final class ResidencyFilter implements Filter {
  public static final String TYPE = "adapter-residency-filter";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public boolean applies(PickRequest request) {
    return request.holders() != null;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    return request.holders() == null || request.holders().contains(e.address());
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.NO_READY_ENDPOINT, request.holders().isEmpty()
        ? "no reachable endpoint serves '" + request.model() + "' (none lists it as its model or a loaded adapter)"
        : "adapter '" + request.model() + "' is held only by " + request.holders()
            + ", which the request may not use");
  }
}
