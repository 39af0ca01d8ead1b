package io.llmgw.extproc.routing;

import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointPicker;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SaturationDetector;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** The decision for one request body: route lookup, target choice, admission, picking, in-flight accounting. */
public final class RequestRouter {
  private static final long[] NO_BLOCKS = new long[0];

  private final Datastore datastore;
  private final EndpointPicker picker;
  private final SaturationDetector saturation;
  private final PrefixHasher prefixHasher;
  private final Supplier<RandomGenerator> random;

  /** @param prefixHasher null when the policy does not use prefix affinity (saves hashing the prompt) */
  public RequestRouter(Datastore datastore, EndpointPicker picker, SaturationDetector saturation,
      PrefixHasher prefixHasher, Supplier<RandomGenerator> random) {
    this.datastore = datastore;
    this.picker = picker;
    this.saturation = saturation;
    this.prefixHasher = prefixHasher;
    this.random = random;
  }

  /** @param objective the {@code x-gateway-inference-objective} header, or null */
  public RoutingResult route(ExtractedBody found, RequestBody body, String modelRewrite, String objective,
      Set<String> subset) {
    Topology topology = datastore.topology();
    RouteView view = topology.routesByModel().get(found.model());
    if (view == null) {
      return new RoutingResult.Rejected(ErrorReply.modelNotFound(found.model()), null);
    }
    LLMRoute route = view.route();
    String target = modelRewrite != null && !modelRewrite.isBlank()
        ? modelRewrite
        : TargetChooser.choose(route, random.get());
    List<EndpointState> states = datastore.states(view.pools());
    int priority = topology.priority(view, objective);
    if (priority < 0 && saturation.saturated(states)) {
      return new RoutingResult.Rejected(ErrorReply.saturated(found.model()), route);
    }
    long[] blocks = NO_BLOCKS;
    if (prefixHasher != null) {
      byte[] prompt = body.promptPrefix(found, prefixHasher.maxBytes());
      blocks = prefixHasher.blocks(target, prompt, prompt.length);
    }
    PickOutcome outcome = picker.pick(new PickRequest(target, priority, blocks, subset), states);
    return switch (outcome) {
      case PickOutcome.Picked p -> {
        var lease = datastore.inFlight().acquire(p.decision().primary().address(), target);
        var forwarded = target.equals(found.model()) ? body.bytes() : body.withModel(found, target);
        yield new RoutingResult.Routed(route, found.model(), target, p.decision(), lease, forwarded);
      }
      case PickOutcome.NoReadyEndpoint n -> new RoutingResult.Rejected(
          ErrorReply.unavailable("no_ready_endpoint", "no endpoint can serve '" + found.model() + "': " + n.detail()), route);
      case PickOutcome.SubsetMismatch s -> new RoutingResult.Rejected(
          ErrorReply.unavailable("subset_mismatch", "no endpoint can serve '" + found.model() + "': " + s.detail()), route);
    };
  }
}
