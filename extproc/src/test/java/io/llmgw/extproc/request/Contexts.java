package io.llmgw.extproc.request;

import com.google.protobuf.ByteString;
import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.body.ModelExtractor;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.Decision;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Requests at a given point of their lifecycle, for tests of single phases and plugins. */
public final class Contexts {
  private static final java.util.concurrent.atomic.AtomicLong NEXT_ID = new java.util.concurrent.atomic.AtomicLong();

  private Contexts() {}

  /** A chat request for {@code model} whose headers and body have arrived. */
  public static RequestContext arrived(TestGateway g, String model, Map<String, String> headers, Set<String> subset) {
    RequestContext ctx = new RequestContext(g.clock);
    ctx.received("req-" + model + "-" + NEXT_ID.incrementAndGet(), headers, subset);
    String json = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    RequestBody body = new RequestBody();
    body.append(ByteString.copyFromUtf8(json));
    ModelExtractor extractor = new ModelExtractor();
    extractor.feed(body.bytes());
    ctx.bodyComplete((ExtractedBody) extractor.finish(), body, 4);
    return ctx;
  }

  public static RequestContext arrived(TestGateway g, String model) {
    return arrived(g, model, Map.of(), null);
  }

  /**
   * Past the resolve phase as the director leaves it: headers read, route found (its priority and limits), the
   * route's own target chosen; about to be admitted.
   */
  public static RequestContext resolved(TestGateway g, String model, Map<String, String> headers,
      Set<String> subset) {
    RequestContext ctx = arrived(g, model, headers, subset);
    ctx.moveTo(RequestState.RESOLVE);
    try {
      ctx.hints(RequestHints.parse(headers));
    } catch (RequestHints.BadHeader e) {
      throw new IllegalArgumentException(e);
    }
    var topology = g.datastore().topology();
    var view = topology.routesByModel().get(model);
    ctx.resolved(view, topology.priority(view, topology.objective(view, ctx.hints().objectiveName())),
        ctx.hints().limits(view.route().adapter()));
    var target = view.route().adapter().targets().isEmpty() ? null : view.route().adapter().targets().getFirst();
    ctx.choice(target == null ? Choice.of(model, null, view.pools())
        : Choice.of(target.name(), target.source(), view.pools()));
    ctx.moveTo(RequestState.PREPARE);
    ctx.moveTo(RequestState.ADMIT);
    return ctx;
  }

  public static RequestContext resolved(TestGateway g, String model) {
    return resolved(g, model, Map.of(), null);
  }

  /** Resolved, then picked for {@code primary}, which was believed to cache {@code cachedShare} of the prompt. */
  public static RequestContext picked(TestGateway g, String model, EndpointState primary, double cachedShare) {
    RequestContext ctx = resolved(g, model);
    ctx.moveTo(RequestState.LOAD);
    ctx.moveTo(RequestState.SCHEDULE);
    ctx.routed(new Routed(new Decision(List.of(primary)), ctx.body().bytes(),
        LoadSnapshot.of(primary).withCachedShare(cachedShare)));
    return ctx;
  }

  /** The request's latency limits checked against the pods' predictions, as admission does. */
  public static void checkObjective(TestGateway g, RequestContext ctx) {
    String target = ctx.choice().target();
    ctx.attributes().put(io.llmgw.picker.attributes.RequestAttributes.OBJECTIVE,
        io.llmgw.picker.latency.ObjectiveCheck.of(ctx.limits(), ctx.promptTokens(), g.parts.latency().estimator(), 0.8,
            e -> io.llmgw.picker.latency.LoadSnapshot.of(e, target, 0)));
  }

  /** Sets the request's choice, as a resolver's answer would. */
  public static void choose(RequestContext ctx, Choice choice) {
    ctx.choice(choice);
  }

  /** The context, its decision to be explained (as a sampled or asking request's is). */
  public static RequestContext explained(RequestContext ctx) {
    ctx.explain(new io.llmgw.picker.Explanation());
    return ctx;
  }
}
