package io.llmgw.extproc.plugins;

import io.llmgw.adapters.Adapters;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.cacheprediction.core.CachePredictionEvents;
import io.llmgw.extproc.capacity.controller.ArrivalMeter;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.objectives.controller.LatencyTracker;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.rollout.Rollouts;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantEvents;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.time.Clock;

/**
 * What the lifecycle's plugins (producers, resolvers, admission steps, the loader, hooks) may be built with besides
 * their parameters: the EPP's settings and the parts its composition root built before them, the scheduling profile
 * included (producers hash prompts as its prefix scorer does and judge load as it does).
 *
 * @param tenants the tenants' budgets (used only when requests carry a tenant)
 * @param decisions the explained decisions, which a response may still add to
 * @param cachePrediction who hears each request's cache prediction against the engine's report
 * @param engineBlocks the index of the pods' KV-cache events (whose losses explain missed predictions)
 * @param arrivals what arrives, for the capacity planner
 * @param profile the configuration's scheduling profile; {@link EppPlugins#build} builds it first and sets it here
 */
public record LifecycleEnv(EppSettings settings, Clock clock, Ticker ticker, Datastore datastore,
    SaturationDetector saturation, FlowControl flow, LatencyTracker latency, Adapters adapters, Rollouts rollouts,
    EppMetrics metrics, TenantBudgets tenants, TenantEvents tenantEvents, DecisionLog decisions,
    CachePredictionEvents cachePrediction, EngineBlockIndex engineBlocks, ArrivalMeter arrivals,
    SchedulingProfile profile) {
  /** Before the profile is built. */
  public LifecycleEnv(EppSettings settings, Clock clock, Ticker ticker, Datastore datastore,
      SaturationDetector saturation, FlowControl flow, LatencyTracker latency, Adapters adapters, Rollouts rollouts,
      EppMetrics metrics, TenantBudgets tenants, TenantEvents tenantEvents, DecisionLog decisions,
      CachePredictionEvents cachePrediction, EngineBlockIndex engineBlocks, ArrivalMeter arrivals) {
    this(settings, clock, ticker, datastore, saturation, flow, latency, adapters, rollouts, metrics, tenants,
        tenantEvents, decisions, cachePrediction, engineBlocks, arrivals, null);
  }

  LifecycleEnv withProfile(SchedulingProfile built) {
    return new LifecycleEnv(settings, clock, ticker, datastore, saturation, flow, latency, adapters, rollouts, metrics,
        tenants, tenantEvents, decisions, cachePrediction, engineBlocks, arrivals, built);
  }
}
