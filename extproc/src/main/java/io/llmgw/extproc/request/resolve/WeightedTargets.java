package io.llmgw.extproc.request.resolve;

import io.llmgw.api.AdapterTarget;
import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A route's target: the one {@code x-gateway-model-name-rewrite} names, else one of the route's targets drawn by
 * weight (a canary), else the route's own name. Model-less routes are left to {@link VariantChooser}.
 */
public final class WeightedTargets implements TargetResolver {
  public static final String TYPE = "weighted-targets";

  private final Supplier<RandomGenerator> random;

  public WeightedTargets(Supplier<RandomGenerator> random) {
    this.random = random;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Resolution resolve(RequestContext ctx, Choice proposed) {
    LLMRoute route = ctx.route().route();
    if (route.adapter().modelLess()) {
      return new Resolution.Chosen(proposed);
    }
    String rewrite = ctx.hints().modelRewrite();
    String target = rewrite != null ? rewrite : draw(route, random.get());
    return new Resolution.Chosen(Choice.of(target, source(route, target), ctx.route().pools()));
  }

  /** Where the target's weights live, when the route says so: such a target is loaded on demand. */
  static String source(LLMRoute route, String target) {
    for (AdapterTarget t : route.adapter().targets()) {
      if (t.name().equals(target)) {
        return t.source();
      }
    }
    return null;
  }

  static String draw(LLMRoute route, RandomGenerator random) {
    List<AdapterTarget> targets = route.adapter().targets();
    if (targets.isEmpty()) {
      return route.modelName();
    }
    if (targets.size() == 1) {
      return targets.getFirst().name();
    }
    long total = 0;
    for (AdapterTarget t : targets) {
      total += t.weight();
    }
    long draw = random.nextLong(total);
    for (AdapterTarget t : targets) {
      draw -= t.weight();
      if (draw < 0) {
        return t.name();
      }
    }
    return targets.getLast().name();
  }
}
