package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Role;
import java.util.List;

/**
 * llm-d's {@code prefill-filter} and {@code decode-filter}: a disaggregated pool's prefill profile looks only at pods
 * labelled {@code llm-d.ai/role: prefill}, its decode profile at those that generate ({@code decode}, {@code both}, or
 * no label).
 */
public final class RoleFilter implements Filter {
  public static final String PREFILL_TYPE = "prefill-filter";
  public static final String DECODE_TYPE = "decode-filter";

  private final boolean prefill;

  private RoleFilter(boolean prefill) {
    this.prefill = prefill;
  }

  public static RoleFilter prefill() {
    return new RoleFilter(true);
  }

  public static RoleFilter decode() {
    return new RoleFilter(false);
  }

  @Override
  public String type() {
    return prefill ? PREFILL_TYPE : DECODE_TYPE;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    Role role = e.endpoint().role();
    return prefill ? role == Role.PREFILL : role.decodes();
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.NO_READY_ENDPOINT, prefill
        ? "no ready pod is labelled " + Role.LABEL + ": prefill"
        : "every ready pod is labelled " + Role.LABEL + ": prefill, and none generates");
  }
}
