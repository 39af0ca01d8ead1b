package io.llmgw.extproc.request;

import com.google.protobuf.ByteString;
import io.llmgw.api.ClientText;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.InferenceObjective;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.admission.AdmissionFacts;
import io.llmgw.extproc.request.admission.AdmissionStep;
import io.llmgw.extproc.request.hooks.PreRequestHook;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.request.prepare.Producer;
import io.llmgw.extproc.request.residency.Loader;
import io.llmgw.extproc.request.resolve.TargetResolver;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Explanation;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.disagg.Disaggregation;
import io.llmgw.picker.disagg.PrefillChoice;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * Drives one request through the lifecycle's phases, in order: resolve the target, prepare its attributes
 * (producers), admission, make the target resident, schedule (filters, scorers, picker), before-request hooks. Each
 * phase runs its extension point's plugins (timed per plugin) and moves the request to the next state; a wait (a
 * budget, flow control, an adapter load) hands the stream a {@link Step.Wait}, and {@link #resume} goes on after the
 * step that waited. Nothing is run twice.
 */
public final class Director {
  private final Datastore datastore;
  private final SaturationDetector saturation;
  private final FlowControl flow;
  private final Ticker ticker;
  private final LongConsumer decisionNanos;
  private final List<TimedPlugin<TargetResolver>> resolvers;
  private final List<TimedPlugin<Producer>> producers;
  private final List<TimedPlugin<AdmissionStep>> admission;
  private final TimedPlugin<Loader> loader;
  private final SchedulingProfile profile;
  private final Disaggregation disaggregation;
  private final List<TimedPlugin<PreRequestHook>> preRequest;
  private final List<TimedPlugin<ResponseHook>> response;
  /** Held from reading the pods' load to taking this request's share of it; a few microseconds per decision. */
  private final PickLock pickLock = new PickLock();
  private final DecisionLog explained;
  /** One request in this many reads the clock around its plugins; a lost update of the count only moves a sample. */
  private final int timingSample;
  private int decisions;
  private static final Step.Resumption PREPARED = new Step.Resumption.Proceed(null);

  /** @param decisionNanos told how long each first decision took (from a complete body to the stream's first step) */
  public Director(Pipeline pipeline, Datastore datastore, SaturationDetector saturation, FlowControl flow,
      Ticker ticker, PluginTimings timings, LongConsumer decisionNanos, DecisionLog explained) {
    this.explained = explained;
    this.timingSample = timings.sampleEvery();
    this.datastore = datastore;
    this.saturation = saturation;
    this.flow = flow;
    this.ticker = ticker;
    this.decisionNanos = decisionNanos;
    this.resolvers = TimedPlugin.of("resolve", pipeline.resolvers(), timings);
    this.producers = TimedPlugin.of("prepare", pipeline.producers(), timings);
    this.admission = TimedPlugin.of("admission", pipeline.admission(), timings);
    this.loader = TimedPlugin.of("load", List.of(pipeline.loader()), timings).getFirst();
    this.profile = pipeline.profile();
    this.disaggregation = pipeline.disaggregation();
    this.preRequest = TimedPlugin.of("pre_request", pipeline.preRequest(), timings);
    this.response = TimedPlugin.of("response", pipeline.response(), timings);
  }

  /** Every plugin of the lifecycle by extension point, in running order (the scheduling profile's as "schedule"). */
  public Map<String, List<PluginId>> plugins() {
    Map<String, List<PluginId>> out = new LinkedHashMap<>();
    out.put("resolve", TimedPlugin.ids(resolvers));
    out.put("prepare", TimedPlugin.ids(producers));
    out.put("admission", TimedPlugin.ids(admission));
    out.put("load", TimedPlugin.ids(List.of(loader)));
    out.put("schedule", profile.plugins());
    if (disaggregation.enabled()) {
      out.put("schedule_prefill", disaggregation.prefillProfile().plugins());
    }
    out.put("pre_request", TimedPlugin.ids(preRequest));
    out.put("response", TimedPlugin.ids(response));
    return out;
  }

  /** The lifecycle in running order, for the start-up log: {@code resolve: a → b; prepare: …; …}. */
  public String describe() {
    return String.join("; ", plugins().entrySet().stream().map(e -> e.getKey() + ": " + (e.getValue().isEmpty() ? "–"
        : String.join(" → ", e.getValue().stream().map(PluginId::toString).toList()))).toList());
  }

  /** The body is complete: decide, from the route on. */
  public Step start(RequestContext ctx) {
    long t0 = ticker.nanos();
    ctx.moveTo(RequestState.RESOLVE);
    ctx.timed(decisions++ % timingSample == 0);
    Step step;
    try {
      ctx.explain(explained.wants(ctx.headers()) || ctx.trace() != null ? new Explanation() : null);
      ctx.hints(RequestHints.parse(ctx.headers()));
      step = run(ctx);
    } catch (RequestHints.BadHeader e) {
      step = new Step.Answer(ErrorReply.badRequest(ErrorCode.INVALID_HEADER, e.getMessage()));
    }
    decisionNanos.accept(ticker.nanos() - t0);
    return keep(ctx, step);
  }

  /** A wait ended: go on after the step that waited, or answer why the request cannot go on. */
  public Step resume(RequestContext ctx, Step.Resumption resumption) {
    ctx.waitingOn(null);
    return keep(ctx, switch (resumption) {
      case Step.Resumption.Refuse r -> new Step.Answer(r.reply());
      case Step.Resumption.Proceed p -> {
        renewAfterWait(ctx); // time passed and the pods' load moved: e.g. what is left of the limits is checked anew
        if (ctx.state() == RequestState.LOADING) {
          ctx.holders(Set.of(p.loadedOn()));
          ctx.moveTo(RequestState.SCHEDULE);
        } else { // pods came and went while it waited (a pool at zero got its first): the pools as they are now
          ctx.choice(ctx.choice().rebound(datastore.topology().poolsByKey()));
          ctx.moveTo(RequestState.ADMIT);
        }
        yield run(ctx);
      }
    });
  }

  /** Keeps the decision's explanation when it is to be explained and the request's path through the EPP ended. */
  private Step keep(RequestContext ctx, Step step) {
    if (ctx.explanation() != null && !(step instanceof Step.Wait)) {
      DecisionLog.Entry e = Decisions.entry(ctx, step, explained.nowMillis());
      explained.record(e);
      if (explained.mayShow(ctx.headers())) {
        ctx.decisionHeader(DecisionLog.oneLine(e));
      }
    }
    return step;
  }

  private Step run(RequestContext ctx) {
    // the pods as admission saw them, for the load step that follows it at once: one snapshot of the pools, not two
    List<EndpointState> admitted = null;
    while (true) {
      Step step = switch (ctx.state()) {
        case RESOLVE -> resolve(ctx);
        case PREPARE -> prepare(ctx);
        case ADMIT -> admit(ctx, admitted = datastore.states(ctx.choice().pools()));
        case LOAD -> load(ctx, admitted != null ? admitted : datastore.states(ctx.choice().pools()));
        case SCHEDULE -> schedule(ctx);
        default -> throw new IllegalStateException("no phase runs in state " + ctx.state());
      };
      if (step != null) {
        return step;
      }
    }
  }

  private Step resolve(RequestContext ctx) {
    Topology topology = datastore.topology();
    RouteView view = datastore.route(topology, ctx.requestedModel());
    if (view == null) {
      return new Step.Answer(ErrorReply.modelNotFound(ctx.requestedModel()));
    }
    String objectiveName = ctx.hints().objectiveName();
    InferenceObjective objective = topology.objective(view, objectiveName);
    if (objectiveName != null && objective == null) {
      return new Step.Answer(ErrorReply.badRequest(ErrorCode.UNKNOWN_OBJECTIVE, "header " + EppProtocol.OBJECTIVE + ": "
          + ClientText.quote(objectiveName) + " names no InferenceObjective of this route's pools"));
    }
    ctx.resolved(view, topology.priority(view, objective),
        ctx.hints().limits(view.route().adapter()));
    Choice choice = null;
    for (TimedPlugin<TargetResolver> r : resolvers) {
      long t0 = r.start(ctx, ticker);
      TargetResolver.Resolution resolution = r.plugin().resolve(ctx, choice);
      r.stop(t0, ticker);
      switch (resolution) {
        case TargetResolver.Resolution.Refused refused -> {
          return new Step.Answer(refused.reply());
        }
        case TargetResolver.Resolution.Chosen chosen -> choice = chosen.choice();
      }
    }
    if (choice == null) {
      throw new IllegalStateException("no resolver chose a target for route " + view.key());
    }
    ctx.choice(choice);
    ctx.moveTo(RequestState.PREPARE);
    return null;
  }

  private Step prepare(RequestContext ctx) {
    CompletableFuture<?> later = null;
    for (TimedPlugin<Producer> p : producers) {
      long t0 = p.start(ctx, ticker);
      CompletableFuture<?> f = p.plugin().produceLater(ctx);
      p.stop(t0, ticker);
      if (f != null && !f.isDone()) {
        later = later == null ? f : CompletableFuture.allOf(later, f);
      }
    }
    if (later != null) {
      ctx.moveTo(RequestState.PREPARING);
      return new Step.Wait(later.handle((v, e) -> PREPARED), () -> {});
    }
    ctx.moveTo(RequestState.ADMIT);
    return null;
  }

  private void renewAfterWait(RequestContext ctx) {
    for (TimedPlugin<Producer> p : producers) {
      if (p.plugin().renewsAfterWait()) {
        long t0 = p.start(ctx, ticker);
        p.plugin().produce(ctx);
        p.stop(t0, ticker);
      }
    }
  }

  private Step admit(RequestContext ctx, List<EndpointState> states) {
    AdmissionFacts facts = new AdmissionFacts(ctx, states, saturation, flow);
    for (int i = ctx.nextAdmissionStep(); i < admission.size(); i++) {
      TimedPlugin<AdmissionStep> a = admission.get(i);
      long t0 = a.start(ctx, ticker);
      AdmissionStep.Verdict verdict = a.plugin().admit(ctx, facts);
      a.stop(t0, ticker);
      switch (verdict) {
        case AdmissionStep.Verdict.Admit admitted -> {}
        case AdmissionStep.Verdict.Refuse refuse -> {
          return new Step.Answer(refuse.reply());
        }
        case AdmissionStep.Verdict.Queue queue -> {
          ctx.nextAdmissionStep(i + 1);
          ctx.moveTo(RequestState.QUEUED);
          ctx.waitingOn(queue.until().cancel());
          return queue.until();
        }
      }
    }
    ctx.moveTo(RequestState.LOAD);
    return null;
  }

  private Step load(RequestContext ctx, List<EndpointState> states) {
    long t0 = loader.start(ctx, ticker);
    Loader.Outcome outcome = loader.plugin().prepare(ctx, Datastore.allowed(states, ctx.proxySubset()));
    loader.stop(t0, ticker);
    switch (outcome) {
      case Loader.Outcome.Ready ready -> {
        ctx.choice(ready.choice());
        ctx.holders(ready.holders());
        ctx.moveTo(RequestState.SCHEDULE);
        return null;
      }
      case Loader.Outcome.Loading loading -> {
        ctx.choice(loading.choice());
        ctx.moveTo(RequestState.LOADING);
        ctx.waitingOn(loading.until().cancel());
        return loading.until();
      }
    }
  }

  /**
   * Picks a pod and takes the request's share of its load (the before-request hooks) in one step under
   * {@link #pickLock}: a pick made a moment later, on another stream, sees this one's in-flight count and prefill
   * tokens, so a burst does not pile onto the pod that looked idlest to all of it.
   */
  private Step schedule(RequestContext ctx) {
    Choice choice = ctx.choice();
    PickRequest request = new PickRequest(choice.target(), ctx.priority(), ctx.proxySubset(), ctx.holders(),
        ctx.promptTokens(), ctx.attributes());
    // before the lock: a rewrite copies the body, which may be megabytes
    ByteString body = !ctx.rewritten() ? ctx.body().bytes()
        : ctx.body().withModel(ctx.found(), choice.target());
    Routed routed;
    pickLock.lock();
    try {
      List<EndpointState> states = datastore.states(choice.pools());
      PickOutcome outcome = profile.schedule(request, states, ctx.explanation(), ctx.timed());
      if (outcome instanceof PickOutcome.NoEndpoint none) {
        return new Step.Answer(ErrorReply.unavailable(ErrorCode.ofWire(none.code(), ErrorCode.NO_READY_ENDPOINT),
            "no endpoint can serve '" + ctx.requestedModel()
                + "': " + none.detail()));
      }
      var picked = (PickOutcome.Picked) outcome;
      PrefillChoice prefill = disaggregation.choose(request, states, picked.decision().primary(),
          picked.loadAtPick().cachedShare(), ctx.timed());
      routed = new Routed(picked.decision(), body, picked.loadAtPick(), prefill, picked.scored());
      ctx.routed(routed);
      EndpointState primary = routed.decision().primary();
      for (TimedPlugin<PreRequestHook> h : preRequest) {
        long t0 = h.start(ctx, ticker);
        h.plugin().preRequest(ctx, primary);
        h.stop(t0, ticker);
      }
    } finally {
      pickLock.unlock();
    }
    ctx.moveTo(RequestState.ROUTED);
    return new Step.Forward(routed);
  }

  /** The response started; {@code served} is the endpoint the proxy used, when it says. */
  public void responseStarted(RequestContext ctx, String served) {
    for (TimedPlugin<ResponseHook> h : response) {
      long t0 = h.start(ctx, ticker);
      h.plugin().onResponseHeaders(ctx, served);
      h.stop(t0, ticker);
    }
  }

  /** The response's first bytes came: for a streamed response, its first token. */
  public void firstBytes(RequestContext ctx) {
    for (TimedPlugin<ResponseHook> h : response) {
      long t0 = h.start(ctx, ticker);
      h.plugin().onFirstBytes(ctx);
      h.stop(t0, ticker);
    }
    Traces.event(ctx, "first token");
  }

  /** The exchange ended (the caller moved the request to a terminal state): every response hook hears it once. */
  public void done(RequestContext ctx, Completion completion) {
    for (TimedPlugin<ResponseHook> h : response) {
      long t0 = h.start(ctx, ticker);
      h.plugin().onDone(ctx, completion);
      h.stop(t0, ticker);
    }
    Traces.end(ctx, completion);
  }
}
