package io.llmgw.extproc.request.resolve;

import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.rollout.Rollouts;

/**
 * While a route's new adapter version loads, its requests go to the version still serving: clients never wait for a
 * rollout's load. The redirect holds only while the old version is resident somewhere ({@link Choice#revertTo}).
 */
public final class RolloutRedirect implements TargetResolver {
  public static final String TYPE = "rollout-redirect";

  private final Rollouts rollouts;

  public RolloutRedirect(Rollouts rollouts) {
    this.rollouts = rollouts;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Resolution resolve(RequestContext ctx, Choice proposed) {
    if (proposed.source() == null || proposed.variant() != null) {
      return new Resolution.Chosen(proposed);
    }
    String serving = rollouts.serving(ctx.route().key(), proposed.target(), proposed.pools());
    return new Resolution.Chosen(serving == null ? proposed : proposed.redirectedTo(serving));
  }
}
