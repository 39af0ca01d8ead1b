package io.llmgw.extproc.objectives.plugins;

import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.prepare.Producer;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LoadSnapshot;
import io.llmgw.picker.latency.ObjectiveCheck;
import io.llmgw.picker.latency.ObjectiveLimits;
import java.util.Set;
import java.util.function.Function;

/**
 * The request's latency limits, what is left of them after the time it waited, against each endpoint's predicted
 * latency for the load the request would meet there (its adapter's batch slot, its prompt's cached share). Renewed
 * after every wait. A request that waited its limits out gets a {@linkplain ObjectiveCheck#spent() spent} check
 * (admission holds nothing back for it; picking prefers the fastest); one without limits gets none.
 */
public final class ObjectiveCheckProducer implements Producer {
  public static final String TYPE = RequestAttributes.OBJECTIVE.defaultProducer();

  private final LatencyEstimator estimator;
  private final double headroom;
  private final SchedulingProfile profile;

  /**
   * @param headroom the share of a limit a pod may be predicted to use and still qualify
   * @param profile reads the load a request meets on a pod the way picking does
   */
  public ObjectiveCheckProducer(LatencyEstimator estimator, double headroom, SchedulingProfile profile) {
    this.estimator = estimator;
    this.headroom = headroom;
    this.profile = profile;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> produces() {
    return Set.of(RequestAttributes.OBJECTIVE);
  }

  /** The prompt's blocks when the profile tracks prompts (the cached share it judges by); nothing otherwise. */
  @Override
  public Set<AttributeKey<?>> consumes() {
    return profile.prefixHasher() == null ? Set.of() : Set.of(RequestAttributes.PROMPT_BLOCKS);
  }

  @Override
  public boolean renewsAfterWait() {
    return true;
  }

  @Override
  public void produce(RequestContext ctx) {
    ObjectiveLimits limits = ctx.limits();
    ObjectiveCheck check = null;
    if (limits.any()) {
      ObjectiveLimits left = limits.after(ctx.waitedMillis());
      check = left.any() ? ObjectiveCheck.of(left, ctx.promptTokens(), estimator, headroom, loads(ctx))
          : ObjectiveCheck.spent(limits, ctx.promptTokens(), estimator, loads(ctx));
    }
    ctx.attributes().put(RequestAttributes.OBJECTIVE, check);
  }

  /** Each endpoint's load as this request, for its current target, would meet it there; blocks hashed on first use. */
  private Function<EndpointState, LoadSnapshot> loads(RequestContext ctx) {
    String target = ctx.choice().target();
    PromptBlocks blocks = ctx.attributes().get(RequestAttributes.PROMPT_BLOCKS);
    return e -> profile.loadFor(target, blocks == null ? PromptBlocks.NONE : blocks.of(target), e);
  }
}
