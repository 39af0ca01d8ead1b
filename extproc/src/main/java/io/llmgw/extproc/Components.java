package io.llmgw.extproc;

import io.llmgw.adapters.AdapterRuntime;
import io.llmgw.adapters.Adapters;
import io.llmgw.adapters.CopyScaler;
import io.llmgw.api.ConfigException;
import io.llmgw.extproc.cacheprediction.core.CachePrediction;
import io.llmgw.extproc.cacheprediction.core.CachePredictionEvents;
import io.llmgw.extproc.cacheprediction.core.CacheTally;
import io.llmgw.extproc.cacheprediction.core.MissCause;
import io.llmgw.extproc.cacheprediction.metrics.CachePredictionMetrics;
import io.llmgw.extproc.capacity.controller.CapacityLoop;
import io.llmgw.extproc.capacity.metrics.CapacityMetrics;
import io.llmgw.extproc.flow.controller.FlowControl;
import io.llmgw.extproc.flow.metrics.FlowMetrics;
import io.llmgw.extproc.objectives.controller.LatencyTracker;
import io.llmgw.extproc.objectives.metrics.ObjectiveMetrics;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.extproc.observe.TrafficHistory;
import io.llmgw.extproc.observe.Vitals;
import io.llmgw.extproc.observe.tracing.Tracing;
import io.llmgw.extproc.plugins.EppPlugins;
import io.llmgw.extproc.plugins.LifecycleEnv;
import io.llmgw.extproc.request.Director;
import io.llmgw.extproc.request.Pipeline;
import io.llmgw.extproc.rollout.Rollouts;
import io.llmgw.extproc.server.StreamDeps;
import io.llmgw.extproc.server.StreamLimits;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantIdentity;
import io.llmgw.extproc.tenancy.metrics.TenantMetrics;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.SchedulingProfile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.config.PluginEnv;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.routed.RoutedPrefixes;
import io.llmgw.scraper.KvCacheSize;
import io.llmgw.scraper.MetricsScraper;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.scraper.ScrapeStates;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EPP's composition root: every part, built once, in dependency order (no part needs one built after it), and
 * the listeners that connect them. {@link Epp} runs what this builds over the real world (scraped pods, their runtime
 * API); tests build the same parts over fakes.
 */
public record Components(Datastore datastore, EppMetrics metrics, Adapters adapters, CopyScaler copyScaler,
    FlowControl flow, LatencyTracker latency, SchedulingProfile profile, GatewayStatus status, StreamDeps streams,
    EngineBlockIndex engineBlocks, RoutedPrefixes routedPrefixes, DecisionLog decisions, TenantBudgets tenants,
    CapacityLoop capacity) {
  private static final Logger LOG = LoggerFactory.getLogger(Components.class);

  /** A configuration was refused (the one before it stays): counted, and kept in the history the status shows. */
  public void configRejected(ConfigException e) {
    metrics.configRejected();
    datastore.history().refused(e.getMessage());
  }

  /**
   * @param scheduler timers: scrapes, flow control's TTL, rollouts' drains, the reaper and copy scaling
   * @param flowDispatcher runs flow control's dispatch passes, one at a time
   * @param scrapes the pods' metrics as scraped (the EPP's {@link MetricsScraper}; a fake in tests)
   * @param metrics the EPP's own metrics, which the scraper also reports to
   * @param runtime loads and unloads adapters on pods
   * @throws IllegalArgumentException when the scheduling configuration cannot be assembled (named in the message)
   */
  public static Components wire(EppSettings s, Clock clock, Ticker ticker, ScheduledExecutorService scheduler,
      Executor flowDispatcher, ScrapeStates scrapes, EppMetrics metrics, AdapterRuntime runtime) {
    // constructors start no thread: a configuration that cannot be assembled stops start-up cleanly
    PluginTimings timings = metrics.pluginTimings();
    LatencyTracker latency = new LatencyTracker(s.objectives().model(), s.objectives().attainmentWindow(),
        s.objectives().attainmentHorizon(), clock);
    Adapters adapters = Adapters.create(runtime, s.adapters(), clock, metrics);
    Datastore datastore = new Datastore(scrapes, adapters.registry(), ticker, clock);
    SaturationDetector saturation = s.saturation().detector(clock);
    FlowControl flow = new FlowControl(s.flow(), saturation, datastore, clock, flowDispatcher, scheduler,
        new FlowMetrics(metrics.registry()));
    Rollouts rollouts = new Rollouts(adapters, datastore, scheduler, s.rolloutDrainCheck());
    TenantIdentity[] identity = new TenantIdentity[1]; // the metrics' labels ask it which tenants the keys name
    TenantMetrics tenantMetrics = new TenantMetrics(metrics.registry(),
        t -> datastore.topology().budgetsByTenant().containsKey(t) || identity[0].keysName(t));
    identity[0] = TenantIdentity.start(s.tenancy(), scheduler, tenantMetrics);
    TenantMetrics.watchKeys(metrics.registry(), identity[0]::refusedKeyReloads);
    TenantBudgets tenants = new TenantBudgets(clock, scheduler, s.flow().ttl(), tenantMetrics, datastore.peerSpend());
    TenantMetrics.watch(metrics.registry(), tenants);
    EngineBlockIndex engineBlocks = new EngineBlockIndex(EngineBlockIndex.DEFAULT_MAX_BLOCKS_PER_POD,
        EngineBlockIndex.DEFAULT_MAX_BLOCKS, EngineBlockIndex.DEFAULT_RELEARN_NANOS, ticker);
    // what the peer exchange shares, when there are peers, hashed from the peers' secret
    RoutedPrefixes routedPrefixes = new RoutedPrefixes(s.listen().peerKey().prefixSeed());
    DecisionLog decisions = DecisionLog.of(s.requests().explainEvery(), clock, s.listen().admin());
    CacheTally cacheTally = new CacheTally();
    CapacityLoop capacity = new CapacityLoop(s.capacity(), datastore, saturation, flow, latency, s.objectives(),
        ticker);
    Pipeline pipeline = EppPlugins.builtIn().build(s.scheduling(), new PluginEnv(clock, ticker,
        ThreadLocalRandom::current, s.staleAfter(), 1 + s.requests().maxFallbacks(), timings, latency.estimator(),
        engineBlocks, routedPrefixes),
        new LifecycleEnv(s, clock, ticker, datastore, saturation, flow, latency, adapters, rollouts, metrics, tenants,
            tenantMetrics, decisions, cachePredictions(metrics, cacheTally), engineBlocks, capacity.meter()),
        LOG::warn);
    SchedulingProfile profile = pipeline.profile();
    // a disaggregated pool's prefill profile may hold scorers of its own, which must forget departed pods too
    SchedulingProfile prefillProfile = pipeline.disaggregation().enabled()
        ? pipeline.disaggregation().prefillProfile() : null;
    scrapes.addListener(new ScrapeListener() {
      @Override
      public void scraped(String address, int skippedLines) {
        flow.signal(); // fresh metrics: a waiting request may fit now
        capacity.batchLimits().scraped(address);
      }

      @Override
      public void kvCacheSize(String address, KvCacheSize size) {
        engineBlocks.capacity(address, size.blocks()); // what its events may claim to hold
        capacity.batchLimits().kvCache(address, size.tokens());
      }
    });
    Director director = new Director(pipeline, datastore, saturation, flow, ticker, timings, metrics::decisionNanos,
        decisions);
    GatewayStatus status = new GatewayStatus(datastore, saturation, flow, latency, s.objectives(), ticker, tenants,
        cacheTally, capacity::plan, new TrafficHistory(metrics.registry(), clock), s.listen().frontDoor());
    metrics.watch(datastore, saturation, clock);
    metrics.watchAdapters(adapters, datastore);
    FlowMetrics.watch(metrics.registry(), flow, status);
    CapacityMetrics.watch(metrics.registry(), status);
    ObjectiveMetrics.watch(metrics.registry(), status);
    datastore.onChange(t -> {
      profile.retainOnly(t.addresses());
      if (prefillProfile != null) {
        prefillProfile.retainOnly(t.addresses());
      }
      engineBlocks.retainOnly(t.addresses());
      datastore.inFlight().forgetIdleExcept(t.addresses());
      latency.retain(t.config().routes(), t.addresses());
      capacity.batchLimits().retainOnly(t.addresses());
      rollouts.onChange(t);
      tenants.budgets(t.budgetsByTenant().values());
    });
    CopyScaler copyScaler = new CopyScaler(adapters, datastore::loadableAdapters, s.copies(), clock);
    StreamLimits limits = new StreamLimits(s.requests().maxStreams(), s.requests().maxBufferedBytes(),
        s.requests().idleTimeout(), ticker);
    metrics.watchStreams(limits::openStreams, limits::bufferedBytes);
    if (s.requests().hooks().conformanceTestHooks()) {
      LOG.warn(
          "--conformance-test-hooks is on: any client can choose its endpoint with the test-epp-endpoint-selection "
              + "header. For GIE conformance runs only");
    }
    StreamDeps streams = new StreamDeps(director, datastore, ticker, s.requests().maxBodyBytes(),
        s.requests().bytesPerToken(), s.requests().destinationFallbacks(), limits, new Vitals(clock),
        Tracing.of(s.requests().traces()), identity[0], s.requests().hooks());
    metrics.watchEngineBlocks(engineBlocks);
    return new Components(datastore, metrics, adapters, copyScaler, flow, latency, profile, status, streams,
        engineBlocks, routedPrefixes, decisions, tenants, capacity);
  }

  /** Each request's cache prediction against the engine's report, to the metrics and the status page's tally. */
  private static CachePredictionEvents cachePredictions(EppMetrics metrics, CacheTally tally) {
    CachePredictionMetrics counted = new CachePredictionMetrics(metrics.registry());
    return new CachePredictionEvents() {
      @Override
      public void observed(CachePrediction p) {
        counted.observed(p);
        tally.observed(p);
      }

      @Override
      public void missing(CachePrediction p, MissCause cause) {
        counted.missing(p, cause);
      }
    };
  }
}
