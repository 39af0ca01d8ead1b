package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.latency.ObjectiveCheck;
import java.util.List;
import java.util.Set;

/**
 * Prefers the endpoints predicted to meet the request's latency limits. A preference: when none is (admission already
 * chose to let the request go, or the request waited past its time-to-first-token limit), picking goes on among those
 * predicted fastest ({@link ObjectiveCheck#fastest}), best effort.
 */
public final class LatencyObjectiveFilter implements Filter {
  public static final String TYPE = "latency-objective-filter";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.OBJECTIVE);
  }

  @Override
  public boolean applies(PickRequest request) {
    return request.attribute(RequestAttributes.OBJECTIVE) != null;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    ObjectiveCheck check = request.attribute(RequestAttributes.OBJECTIVE);
    return check == null || check.meets(e);
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return null;
  }

  @Override
  public List<EndpointState> bestEffort(PickRequest request, List<EndpointState> candidates) {
    return request.attribute(RequestAttributes.OBJECTIVE).fastest(candidates);
  }
}
