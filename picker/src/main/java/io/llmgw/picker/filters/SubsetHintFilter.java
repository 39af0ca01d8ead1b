package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import java.util.List;

/** Keeps only the endpoints the proxy's subset hint allows (all of them when it sent none). */
public final class SubsetHintFilter implements Filter {
  public static final String TYPE = "subset-hint-filter";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public boolean applies(PickRequest request) {
    return request.subset() != null;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    return request.subset() == null || e.endpoint().allowedBy(request.subset());
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.SUBSET_MISMATCH, request.subset().isEmpty()
        ? "the proxy's subset hint is empty"
        : "none of its endpoints is in the proxy's subset hint " + request.subset());
  }
}
