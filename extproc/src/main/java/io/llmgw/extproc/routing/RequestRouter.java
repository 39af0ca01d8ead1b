package io.llmgw.extproc.routing;

import io.llmgw.adapters.AdapterManager;
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
  private final AdapterManager adapters;
  private final Rollouts rollouts;

  /**
   * @param prefixHasher null when the policy does not use prefix affinity (saves hashing the prompt)
   * @param adapters loads targets that name a {@code source} on demand
   * @param rollouts keeps a route on its old version while its new one loads
   */
  public RequestRouter(Datastore datastore, EndpointPicker picker, SaturationDetector saturation,
      PrefixHasher prefixHasher, Supplier<RandomGenerator> random, AdapterManager adapters, Rollouts rollouts) {
    this.datastore = datastore;
    this.picker = picker;
    this.saturation = saturation;
    this.prefixHasher = prefixHasher;
    this.random = random;
    this.adapters = adapters;
    this.rollouts = rollouts;
  }

  /** @param objective the {@code x-gateway-inference-objective} header, or null */
  public RoutingResult route(ExtractedBody found, RequestBody body, String modelRewrite, String objective,
      Set<String> subset) {
    return route(found, body, modelRewrite, objective, subset, null);
  }

  /**
   * @param loadedOn after a load this request waited for: the pod it was loaded on, the only one to pick; the target is
   *     then not loaded again
   */
  public RoutingResult route(ExtractedBody found, RequestBody body, String modelRewrite, String objective,
      Set<String> subset, LoadedTarget loadedOn) {
    Topology topology = datastore.topology();
    RouteView view = topology.routesByModel().get(found.model());
    if (view == null) {
      return new RoutingResult.Rejected(ErrorReply.modelNotFound(found.model()), null);
    }
    LLMRoute route = view.route();
    String target = loadedOn != null ? loadedOn.target()
        : modelRewrite != null && !modelRewrite.isBlank() ? modelRewrite
        : TargetChooser.choose(route, random.get());
    List<EndpointState> states = datastore.states(view.pools());
    // admission first: a request that would be shed must not start (or wait for) an adapter load
    int priority = topology.priority(view, objective);
    if (priority < 0 && saturation.saturated(states)) {
      return new RoutingResult.Rejected(ErrorReply.saturated(found.model()), route);
    }
    String source = TargetChooser.source(route, target);
    if (source != null && loadedOn == null) {
      Rollouts.Effective now = rollouts.effective(route, target, source, states);
      target = now.target();
      source = now.source();
      if (source == null) {
        Set<String> oldHolders = adapters.residentOn(target, states);
        subset = intersect(subset, oldHolders);
      }
    }
    if (source != null) {
      Set<String> holders = loadedOn != null ? Set.of(loadedOn.address()) : adapters.residentOn(target, states);
      if (holders.isEmpty()) {
        return new RoutingResult.AwaitingLoad(route, target,
            adapters.ensureLoaded(target, source, () -> datastore.states(view.pools())));
      }
      subset = intersect(subset, holders);
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
        adapters.used(p.decision().primary().address(), target);
        var forwarded = target.equals(found.model()) ? body.bytes() : body.withModel(found, target);
        yield new RoutingResult.Routed(route, found.model(), target, p.decision(), lease, forwarded);
      }
      case PickOutcome.NoReadyEndpoint n -> new RoutingResult.Rejected(
          ErrorReply.unavailable("no_ready_endpoint", "no endpoint can serve '" + found.model() + "': " + n.detail()), route);
      case PickOutcome.SubsetMismatch s -> new RoutingResult.Rejected(
          ErrorReply.unavailable("subset_mismatch", "no endpoint can serve '" + found.model() + "': " + s.detail()), route);
    };
  }

  /** How long a request waits for its adapter to be loaded. */
  public java.time.Duration loadWaitTimeout() {
    return adapters.settings().loadWaitTimeout();
  }

  /** The target a waited-for load brought in, and the pod it is on. */
  public record LoadedTarget(String target, String address) {}

  /** The proxy's subset (if any) narrowed to the pods holding the adapter. */
  private static Set<String> intersect(Set<String> subset, Set<String> holders) {
    if (subset == null) {
      return holders;
    }
    Set<String> out = new java.util.LinkedHashSet<>(subset);
    out.retainAll(holders);
    return out;
  }
}
