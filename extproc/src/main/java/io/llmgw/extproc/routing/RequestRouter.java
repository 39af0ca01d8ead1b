package io.llmgw.extproc.routing;

import io.llmgw.adapters.AdapterManager;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.ObjectiveFallback;
import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.flow.FlowControl;
import io.llmgw.extproc.latency.LatencyTracker;
import io.llmgw.extproc.latency.ObjectiveLimits;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointPicker;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.latency.LoadSnapshot;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The decision for one request body: route lookup, target (or variant) choice, admission and flow control, latency
 * objectives, adapter residency, picking, in-flight accounting.
 */
public final class RequestRouter {
  private static final long[] NO_BLOCKS = new long[0];

  private final Datastore datastore;
  private final EndpointPicker picker;
  private final SaturationDetector saturation;
  private final PrefixHasher prefixHasher;
  private final Supplier<RandomGenerator> random;
  private final AdapterManager adapters;
  private final Rollouts rollouts;
  private final FlowControl flow;
  private final LatencyTracker latency;
  private final VariantChooser variants;
  private final Clock clock;

  /**
   * @param prefixHasher null when the policy does not use prefix affinity (saves hashing the prompt)
   * @param adapters loads targets that name a {@code source} on demand
   * @param rollouts keeps a route on its old version while its new one loads
   * @param flow holds requests while their pool is saturated (its settings may switch it off)
   * @param latency the latency model objectives are checked against
   */
  public RequestRouter(Datastore datastore, EndpointPicker picker, SaturationDetector saturation,
      PrefixHasher prefixHasher, Supplier<RandomGenerator> random, AdapterManager adapters, Rollouts rollouts,
      FlowControl flow, LatencyTracker latency, Clock clock) {
    this.datastore = datastore;
    this.picker = picker;
    this.saturation = saturation;
    this.prefixHasher = prefixHasher;
    this.random = random;
    this.adapters = adapters;
    this.rollouts = rollouts;
    this.flow = flow;
    this.latency = latency;
    this.variants = new VariantChooser(datastore, saturation, latency.estimator(), adapters);
    this.clock = clock;
  }

  public RoutingResult route(ExtractedBody found, RequestBody body, RequestHints hints, Stage stage) {
    Topology topology = datastore.topology();
    RouteView view = topology.routesByModel().get(found.model());
    if (view == null) {
      return new RoutingResult.Rejected(ErrorReply.modelNotFound(found.model()), null);
    }
    LLMRoute route = view.route();
    long promptTokens = body.size() / 4;
    Choice choice = switch (stage) {
      case Stage.Dispatched d -> d.choice();
      case Stage.Loaded l -> l.choice();
      case Stage.Fresh f -> choose(view, hints, promptTokens);
    };
    if (choice == null) {
      return new RoutingResult.Rejected(ErrorReply.unavailable("no_ready_endpoint",
          "no pool of a variant of '" + found.model() + "' has an endpoint"), route);
    }
    List<EndpointState> states = datastore.states(choice.pools());
    int priority = topology.priority(view, hints.objectiveName());
    ObjectiveLimits limits = ObjectiveLimits.of(route.adapter(), hints);
    ObjectiveLimits left = limits.after(hints.waitedMillis());
    // the pods predicted to meet the request's objectives now: null when it has none (predicted once per decision)
    Set<String> meeting = left.any() ? left.meeting(states, latency.estimator(), promptTokens) : null;
    if (stage instanceof Stage.Fresh) {
      RoutingResult held = admit(route, choice, states, priority, limits, meeting, hints, body.size(), promptTokens,
          found);
      if (held != null) {
        return held;
      }
    }
    Set<String> subset = hints.subset();
    String target = choice.target();
    String source = choice.source();
    if (source != null && stage instanceof Stage.Fresh && choice.variant() == null) {
      Rollouts.Effective now = rollouts.effective(route, target, source, states);
      choice = choice.withTarget(now.target(), now.source());
      target = now.target();
      source = now.source();
      if (source == null) {
        subset = intersect(subset, adapters.residentOn(target, states));
      }
    }
    if (source != null) {
      Set<String> holders = stage instanceof Stage.Loaded l ? Set.of(l.address()) : adapters.residentOn(target, states);
      if (holders.isEmpty()) {
        Choice loading = choice;
        return new RoutingResult.AwaitingLoad(route, loading,
            adapters.ensureLoaded(target, source, () -> datastore.states(loading.pools())));
      }
      subset = intersect(subset, holders);
    }
    if (meeting != null) {
      Set<String> narrowed = intersect(subset, meeting);
      if (!narrowed.isEmpty()) {
        subset = narrowed; // otherwise the objective cannot be met anywhere: best effort among the rest
      }
    }
    long[] blocks = NO_BLOCKS;
    if (prefixHasher != null) {
      byte[] prompt = body.promptPrefix(found, prefixHasher.maxBytes());
      blocks = prefixHasher.blocks(target, prompt, prompt.length);
    }
    PickOutcome outcome = picker.pick(new PickRequest(target, priority, blocks, subset), states);
    return switch (outcome) {
      case PickOutcome.Picked p -> {
        String address = p.decision().primary().address();
        LoadSnapshot load = loadOf(states, address);
        var lease = datastore.inFlight().acquire(address, target);
        adapters.used(address, target);
        var forwarded = target.equals(found.model()) ? body.bytes() : body.withModel(found, target);
        yield new RoutingResult.Routed(route, found.model(), choice, p.decision(), lease, forwarded, load,
            promptTokens);
      }
      case PickOutcome.NoReadyEndpoint n -> new RoutingResult.Rejected(
          ErrorReply.unavailable("no_ready_endpoint", "no endpoint can serve '" + found.model() + "': " + n.detail()), route);
      case PickOutcome.SubsetMismatch s -> new RoutingResult.Rejected(
          ErrorReply.unavailable("subset_mismatch", "no endpoint can serve '" + found.model() + "': " + s.detail()), route);
    };
  }

  /**
   * Admission: a sheddable request is refused when the pool has no room (saturated, or others already waiting); with
   * flow control, any other request without room waits, as does one whose objective no pod is predicted to meet
   * (unless its route sheds instead). Null: go ahead now.
   */
  private RoutingResult admit(LLMRoute route, Choice choice, List<EndpointState> states, int priority,
      ObjectiveLimits limits, Set<String> meeting, RequestHints hints, int bytes, long promptTokens,
      ExtractedBody found) {
    boolean flowOn = flow.settings().enabled();
    boolean noRoom = (flowOn || priority < 0)
        && (flowOn && flow.hasWaiting(choice.pools()) || saturation.saturated(states));
    if (priority < 0 && noRoom) {
      return new RoutingResult.Rejected(ErrorReply.saturated(found.model()), route);
    }
    if (states.stream().noneMatch(EndpointState::scrapeHealthy)) {
      return null; // nothing to wait for: the picker answers at once (503 when no endpoint can serve)
    }
    boolean objectiveUnmet = meeting != null && meeting.isEmpty() && !FlowControl.idle(states);
    if (objectiveUnmet && route.adapter().objectiveFallback() == ObjectiveFallback.SHED) {
      return new RoutingResult.Rejected(ErrorReply.objectiveUnattainable(found.model()), route);
    }
    if (!flowOn || !(noRoom || objectiveUnmet)) {
      return null;
    }
    long deadline = clock.millis() + (limits.ttftMs() > 0 ? (long) limits.ttftMs() : flow.settings().ttl().toMillis());
    String flowId = hints.fairnessId() != null ? hints.fairnessId() : route.namespace() + "/" + route.name();
    var ticket = flow.enqueue(choice.pools(), priority, flowId, bytes, deadline, now -> {
      ObjectiveLimits remaining = limits.after(hints.waitedMillis());
      return !remaining.any() || !remaining.meeting(now, latency.estimator(), promptTokens).isEmpty();
    });
    return new RoutingResult.Queued(route, choice, ticket);
  }

  private Choice choose(RouteView view, RequestHints hints, long promptTokens) {
    LLMRoute route = view.route();
    if (route.adapter().modelLess()) {
      var req = route.adapter().requirements().overriddenBy(hints.maxLatency(), hints.minAccuracy(), hints.maxCost());
      return variants.choose(route.adapter(), view.pools(), req, promptTokens);
    }
    String target = hints.modelRewrite() != null ? hints.modelRewrite() : TargetChooser.choose(route, random.get());
    return Choice.of(target, TargetChooser.source(route, target), view.pools());
  }

  private static LoadSnapshot loadOf(List<EndpointState> states, String address) {
    for (EndpointState s : states) {
      if (s.address().equals(address)) {
        return LoadSnapshot.of(s);
      }
    }
    return new LoadSnapshot(0, 0, 0);
  }

  /** How long a request waits for its adapter to be loaded. */
  public java.time.Duration loadWaitTimeout() {
    return adapters.settings().loadWaitTimeout();
  }

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
