package io.llmgw.extproc.request.resolve;

import io.llmgw.api.AdapterTarget;
import io.llmgw.api.ClientText;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A route's target: one of the route's targets drawn by weight (a canary), else the route's own name. The header
 * {@code x-gateway-model-name-rewrite} chooses the target only when the operator trusts it (a proxy in front sets it
 * and strips the client's), and then only among the route's own targets: a client must not be able to send its
 * request to another route's adapter or mint metric labels. Model-less routes are left to {@link VariantChooser}.
 */
public final class WeightedTargets implements TargetResolver {
  public static final String TYPE = "weighted-targets";

  private final Supplier<RandomGenerator> random;
  private final boolean trustRewriteHeader;

  public WeightedTargets(Supplier<RandomGenerator> random, boolean trustRewriteHeader) {
    this.random = random;
    this.trustRewriteHeader = trustRewriteHeader;
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
    String rewrite = trustRewriteHeader ? ctx.hints().modelRewrite() : null;
    if (rewrite != null && !isTarget(route, rewrite)) {
      return new Resolution.Refused(
          ErrorReply.badRequest(ErrorCode.INVALID_HEADER, "header " + EppProtocol.MODEL_REWRITE
              + ": " + ClientText.quote(rewrite) + " is not a target of this route (" + targetNames(route) + ")"));
    }
    String target = rewrite != null ? rewrite : draw(route, random.get());
    return new Resolution.Chosen(Choice.of(target, source(route, target), ctx.route().pools()));
  }

  private static boolean isTarget(LLMRoute route, String name) {
    List<AdapterTarget> targets = route.adapter().targets();
    return targets.isEmpty() ? name.equals(route.modelName()) : targets.stream().anyMatch(t -> t.name().equals(name));
  }

  private static String targetNames(LLMRoute route) {
    List<AdapterTarget> targets = route.adapter().targets();
    return targets.isEmpty() ? route.modelName()
        : String.join(", ", targets.stream().map(AdapterTarget::name).toList());
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
