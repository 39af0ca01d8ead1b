package io.llmgw.extproc.request.resolve;

import io.llmgw.adapters.LoadQueue;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.Requirements;
import io.llmgw.api.RouteAdapter;
import io.llmgw.api.RouteKey;
import io.llmgw.api.Variant;
import io.llmgw.extproc.capacity.controller.ArrivalMeter;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.RequestHints;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * Model-less routing (INFaaS): the caller states requirements, the EPP picks the variant. In order of preference:
 * <ol>
 *   <li>the cheapest variant that is resident (a ready pod serves it) and meets every requirement, its latency
 *       predicted from its pods' current load (a saturated pool cannot meet a latency requirement); when a cheaper
 *       qualifying variant could be made resident, it is loaded in the background, so later requests converge on
 *       the lowest cost without this one waiting for a load;
 *   <li>the cheapest variant that meets the accuracy and cost requirements and can be made resident (it has a
 *       {@code source}): it is loaded for this request;
 *   <li>the closest variant — the smallest shortfall, each requirement's shortfall relative to the requirement — and
 *       the response says which requirements it misses.
 * </ol>
 * Requirements come from the route, overridden by the request's {@code x-llmgw-*} headers. Each choice is counted for
 * the capacity planner, with the cheapest variant the request qualifies for when that one's pool had no room (no pod,
 * or saturated): that load is the cheaper pool's demand.
 */
public final class VariantChooser implements TargetResolver {
  public static final String TYPE = "model-less-variants";

  private final Datastore datastore;
  private final SaturationDetector saturation;
  private final LatencyEstimator estimator;
  private final LoadQueue loads;
  private final ArrivalMeter arrivals;

  public VariantChooser(Datastore datastore, SaturationDetector saturation, LatencyEstimator estimator,
      LoadQueue loads, ArrivalMeter arrivals) {
    this.arrivals = arrivals;
    this.datastore = datastore;
    this.saturation = saturation;
    this.estimator = estimator;
    this.loads = loads;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Resolution resolve(RequestContext ctx, Choice proposed) {
    RouteAdapter adapter = ctx.route().route().adapter();
    if (!adapter.modelLess()) {
      return new Resolution.Chosen(proposed);
    }
    RequestHints h = ctx.hints();
    Requirements req = adapter.requirements().overriddenBy(h.maxLatency(), h.minAccuracy(), h.maxCost());
    Choice chosen = choose(adapter, ctx.route().pools(), req, ctx.promptTokens(), ctx.route().key());
    return chosen != null ? new Resolution.Chosen(chosen) : new Resolution.Refused(ErrorReply.unavailable(
        ErrorCode.NO_READY_ENDPOINT, "no pool of a variant of '" + ctx.requestedModel() + "' has an endpoint"));
  }

  Choice choose(RouteAdapter adapter, List<PoolView> routePools, Requirements req, long promptTokens,
      RouteKey route) {
    Candidate bestResident = null;
    Candidate bestLoadable = null;
    Candidate closest = null;
    Variant wanted = null;
    PoolView wantedPool = null;
    boolean wantedHasRoom = false;
    for (Variant v : adapter.variants()) {
      PoolView pool = poolOf(routePools, v.pool());
      if (pool == null) {
        continue;
      }
      boolean qualifies = v.accuracy() >= req.minAccuracy() && v.costPer1kTokens() <= req.maxCostPer1kTokens();
      boolean cheapest = qualifies && (wanted == null || cheaper(v, wanted));
      if (cheapest) {
        wanted = v;
        wantedPool = pool;
        wantedHasRoom = false;
      }
      if (pool.endpoints().isEmpty()) {
        continue;
      }
      Candidate c = evaluate(v, pool, req, promptTokens);
      if (cheapest) {
        wantedHasRoom = !c.saturated;
      }
      if (c.resident && c.unmet.isEmpty() && (bestResident == null || c.cheaperThan(bestResident))) {
        bestResident = c;
      }
      if (!c.resident && qualifies && v.source() != null && (bestLoadable == null || c.cheaperThan(bestLoadable))) {
        bestLoadable = c;
      }
      if (closest == null || c.shortfall < closest.shortfall
          || c.shortfall == closest.shortfall && c.cheaperThan(closest)) {
        closest = c;
      }
    }
    Candidate chosen = bestResident != null ? bestResident : bestLoadable != null ? bestLoadable : closest;
    if (chosen == null) {
      // every variant's pool is without pods: one that may scale to zero is scaling up, and the request waits for it
      return wantedPool != null && wantedPool.pool().capacity().minReplicas() == 0
          ? new Choice(wanted.name(), wanted.source(), List.of(wantedPool), wanted, List.of(), null) : null;
    }
    arrivals.modelLess(route, chosen.pool.key(), wantedPool == null || wantedHasRoom ? null : wantedPool.key());
    if (chosen == bestResident && bestLoadable != null && bestLoadable.cheaperThan(bestResident)) {
      PoolView pool = bestLoadable.pool;
      loads.prefetch(bestLoadable.variant.name(), bestLoadable.variant.source(),
          () -> datastore.states(List.of(pool))); // failures are recorded by the manager and retried after expiry
    }
    List<String> unmet = chosen == bestLoadable ? List.of() : chosen.unmet;
    return new Choice(chosen.variant.name(), chosen.variant.source(), List.of(chosen.pool), chosen.variant, unmet,
        null);
  }

  private Candidate evaluate(Variant v, PoolView pool, Requirements req, long promptTokens) {
    List<EndpointState> states = datastore.states(List.of(pool));
    boolean resident = false;
    double bestTtft = Double.POSITIVE_INFINITY;
    for (EndpointState s : states) {
      if (s.scrapeHealthy() && s.serves(v.name())) {
        resident = true;
        double p = estimator.predict(s.address(), LoadSnapshot.of(s, v.name(), 0), promptTokens).ttftMs();
        bestTtft = Math.min(bestTtft, Double.isNaN(p) ? 0 : p);
      }
    }
    boolean saturated = saturation.saturated(states);
    List<String> unmet = new ArrayList<>();
    double shortfall = 0;
    if (v.accuracy() < req.minAccuracy()) {
      unmet.add("accuracy " + v.accuracy() + " < " + req.minAccuracy());
      shortfall += (req.minAccuracy() - v.accuracy()) / Math.max(req.minAccuracy(), 1e-9);
    }
    if (v.costPer1kTokens() > req.maxCostPer1kTokens()) {
      unmet.add("cost " + v.costPer1kTokens() + " > " + req.maxCostPer1kTokens());
      shortfall += (v.costPer1kTokens() - req.maxCostPer1kTokens()) / Math.max(req.maxCostPer1kTokens(), 1e-9);
    }
    if (req.maxLatency() != null) {
      double limit = req.maxLatency().toMillis();
      if (saturated || !resident || bestTtft > limit) {
        unmet.add(saturated ? "latency: pool saturated" : !resident ? "latency: not resident"
            : "latency ~" + Math.round(bestTtft) + " ms > " + Math.round(limit) + " ms");
        shortfall += saturated || !resident ? 1 : (bestTtft - limit) / limit;
      }
    }
    return new Candidate(v, pool, resident, saturated, unmet, shortfall);
  }

  private static boolean cheaper(Variant a, Variant b) {
    return a.costPer1kTokens() < b.costPer1kTokens()
        || a.costPer1kTokens() == b.costPer1kTokens() && a.accuracy() > b.accuracy();
  }

  private static PoolView poolOf(List<PoolView> pools, String name) {
    for (PoolView p : pools) {
      if (p.key().name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  private record Candidate(Variant variant, PoolView pool, boolean resident, boolean saturated, List<String> unmet,
      double shortfall) {
    boolean cheaperThan(Candidate other) {
      return cheaper(variant, other.variant);
    }
  }
}
