package io.llmgw.extproc.observe;

import io.llmgw.adapters.AdapterEvents;
import io.llmgw.adapters.Adapters;
import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.extproc.state.Topology;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.PluginTimings;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.scraper.kvevents.KvEventStats;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The EPP's own metrics (served on {@code --metrics-port}); one registry per EPP so tests can run several. */
public final class EppMetrics implements ScrapeListener, AdapterEvents {
  private static final Logger LOG = LoggerFactory.getLogger(EppMetrics.class);

  /** Plugin calls per one observed into {@code llmgw_plugin_duration_seconds}. */
  static final int PLUGIN_TIMING_SAMPLE = 16;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final int pluginTimingSample;
  private final Counter requests = Counter.builder().name("llmgw_requests_total")
      .help("Requests by requested model, target, priority and HTTP status (or cancelled/error/incomplete)")
      .labelNames("model", "target", "priority", "code").register(registry);
  private final Counter failures = Counter.builder().name("llmgw_request_failures_total")
      .help("Requests not answered 2xx, by model, status and reason (the EPP's error code, from_pod, ended_early)")
      .labelNames("model", "code", "reason").register(registry);
  // On the request path: classic buckets only and no exemplars, so an observation is a bucket search and two adds
  private final Histogram decision = Histogram.builder().name("llmgw_decision_duration_seconds")
      .help("Time to route one request once its body is complete")
      .classicOnly().classicUpperBounds(0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.005, 0.01, 0.05)
      .withoutExemplars().register(registry);
  private final Histogram timeToFirstToken = Histogram.builder().name("llmgw_time_to_first_token_seconds")
      .help("From a request's arrival at the EPP to its first response token (queueing in the EPP and at the pod "
          + "included), for routed requests that completed")
      .classicOnly().classicUpperBounds(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
      .withoutExemplars().register(registry);
  private final Counter disaggregation = Counter.builder().name("llmgw_disaggregation_decisions_total")
      .help("Routed requests of a pool with prefill pods, by what the pd-profile-handler decided: split (a prefill "
          + "pod computes the prompt), short, prefill_busy, no_prefill_pod (served whole)")
      .labelNames("decision").register(registry);
  private final Counter tokens = Counter.builder().name("llmgw_tokens_total")
      .help("Tokens read from response usage, by model and kind (prompt, completion)")
      .labelNames("model", "kind").register(registry);
  private final Counter scrapeErrors = Counter.builder().name("llmgw_scrape_errors_total")
      .help("Failed scrapes by endpoint and path").labelNames("endpoint", "path").register(registry);
  private final Counter skippedLines = Counter.builder().name("llmgw_scrape_skipped_lines_total")
      .help("Metrics lines that could not be parsed, by endpoint").labelNames("endpoint").register(registry);
  private final Counter cacheMisses = Counter.builder().name("llmgw_adapter_cache_misses_total")
      .help("Requests whose adapter no reachable pod held, so they waited for a load").register(registry);
  private final Histogram cacheMissWait = Histogram.builder().name("llmgw_adapter_cache_miss_wait_seconds")
      .help("How long a request waited for its adapter to be loaded (or to fail)")
      .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30).register(registry);
  private final Counter adapterLoads = Counter.builder().name("llmgw_adapter_loads_total")
      .help("Adapter loads by result (ok, failed)").labelNames("result").register(registry);
  {
    // both series from the start: increase() cannot see a counter's first value, so a failure series born at 3 would
    // never show an increase, and the alert on failed loads would never fire
    adapterLoads.initLabelValues("ok");
    adapterLoads.initLabelValues("failed");
  }

  private final Counter adapterUnloads = Counter.builder().name("llmgw_adapter_unloads_total")
      .help("Adapters unloaded to make room").register(registry);
  private final Histogram adapterLoadSeconds = Histogram.builder().name("llmgw_adapter_load_seconds")
      .help("Time one successful load took on the pod").classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30)
      .register(registry);
  private final Counter configErrors = Counter.builder().name("llmgw_config_rejected_total")
      .help("Configuration edits rejected (the last good configuration stays in force)").register(registry);
  private final Counter leasesExpired = Counter.builder().name("llmgw_inflight_expired_total")
      .help("Routed requests that stopped counting in flight because they outlasted --max-request-duration")
      .register(registry);
  private final Counter idleExpired = Counter.builder().name("llmgw_streams_idle_expired_total")
      .help("Streams whose request sent nothing for --request-idle-timeout while it arrived (answered 408 or ended)")
      .register(registry);
  public EppMetrics() {
    this(PLUGIN_TIMING_SAMPLE);
  }

  /** @param pluginTimingSample time one request's plugins in this many (1: every request, as tests that count calls need) */
  public EppMetrics(int pluginTimingSample) {
    this.pluginTimingSample = pluginTimingSample;
  }

  private final Histogram pluginDurations = Histogram.builder().name("llmgw_plugin_duration_seconds")
      .help("Time each plugin of the request lifecycle took per call, by extension point, plugin type and name; one "
          + "request in 16 is timed")
      .labelNames("extension_point", "plugin_type", "plugin_name")
      .classicOnly().classicUpperBounds(0.000_001, 0.000_002, 0.000_005, 0.000_01, 0.000_02, 0.000_05, 0.000_1,
          0.000_5, 0.001, 0.01)
      .withoutExemplars().register(registry);

  /**
   * One histogram series per plugin, bound once; one request in {@value #PLUGIN_TIMING_SAMPLE} is timed: reading the
   * clock and observing cost more than most plugins they would time, and a sample shows the same distribution.
   */
  public PluginTimings pluginTimings() {
    return new PluginTimings() {
      @Override
      public LongConsumer sink(String point, PluginId id) {
        DistributionDataPoint series = pluginDurations.labelValues(point, id.type(), id.name());
        return nanos -> series.observe(nanos / 1e9);
      }

      @Override
      public int sampleEvery() {
        return pluginTimingSample;
      }
    };
  }

  /**
   * Registers the gauges that read live state (until then only counters and the histogram exist), and drops the
   * per-endpoint series of endpoints that leave, so pod churn does not grow the metrics without bound.
   */
  public void watch(Datastore datastore, SaturationDetector saturation, Clock clock) {
    datastore.onChange(topology -> {
      scrapeErrors.removeIf(labels -> !topology.addresses().contains(labels.getFirst()));
      skippedLines.removeIf(labels -> !topology.addresses().contains(labels.getFirst()));
    });
    GaugeWithCallback.builder().name("llmgw_endpoint_metrics_age_seconds")
        .help("Age of each endpoint's last successful scrape").labelNames("pool", "endpoint")
        .callback(cb -> forEachPool(datastore, (pool, states) -> {
          for (EndpointState e : states) {
            cb.call((clock.millis() - e.metrics().updatedAt().toEpochMilli()) / 1000.0, pool, e.address());
          }
        })).register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_ready_endpoints")
        .help("Endpoints whose last scrape succeeded").labelNames("pool")
        .callback(cb -> forEachPool(datastore,
            (pool, states) -> cb.call(states.stream().filter(EndpointState::scrapeHealthy).count(), pool)))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_mean_queue")
        .help("Mean waiting queue over the pool's endpoints").labelNames("pool")
        .callback(cb -> forEachPool(datastore,
            (pool, states) -> cb.call(states.stream().mapToInt(e -> e.metrics().waitingQueue()).average().orElse(0),
                pool)))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_mean_kv_cache_usage")
        .help("Mean KV-cache usage (0-1) over the pool's endpoints").labelNames("pool")
        .callback(cb -> forEachPool(datastore,
            (pool, states) -> cb.call(states.stream().mapToDouble(e -> e.metrics().kvCacheUsage()).average().orElse(0),
                pool)))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_pool_saturation")
        .help("Pool saturation as the admission check sees it (>= 1 is saturated)").labelNames("pool")
        .callback(cb -> forEachPool(datastore, (pool, states) -> cb.call(saturation.saturation(states), pool)))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_inflight_requests")
        .help("Requests routed whose response has not ended, by endpoint and model").labelNames("endpoint", "model")
        .callback(cb -> datastore.inFlight().all()
            .forEach((address, load) -> load.perModel().forEach((model, n) -> cb.call(n, address, model))))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_peer_replicas")
        .help("Other EPP replicas whose in-flight counts this one heard in the last 500 ms (--peers)")
        .callback(cb -> cb.call(datastore.peers().freshPeers()))
        .register(registry);
  }

  private interface PoolVisitor {
    void visit(String pool, List<EndpointState> states);
  }

  private static void forEachPool(Datastore datastore, PoolVisitor visitor) {
    Topology t = datastore.topology();
    for (PoolView p : t.poolsByKey().values()) {
      visitor.visit(p.key().toString(), datastore.states(List.of(p)));
    }
  }

  /** Cluster mode: whether this replica leads (writes status), how many statuses it wrote, whether it has synced. */
  /** 1 while the EPP answers readiness SERVING: alerts tell "up but not ready" (starting, draining, broken) from down. */
  public void watchReadiness(BooleanSupplier ready) {
    GaugeWithCallback.builder().name("llmgw_ready")
        .help("1 while the EPP is ready (routes and pods loaded, ext_proc listening, healthy); 0 otherwise")
        .callback(cb -> cb.call(ready.getAsBoolean() ? 1 : 0)).register(registry);
  }

  public void watchCluster(ClusterConfigSource source) {
    GaugeWithCallback.builder().name("llmgw_leader")
        .help("1 while this replica holds the Lease and writes LLMRoute status (every replica routes)")
        .callback(cb -> cb.call(source.leading() ? 1 : 0)).register(registry);
    CounterWithCallback.builder().name("llmgw_route_status_writes")
        .help("LLMRoute status updates this replica wrote, each a change of conditions")
        .callback(cb -> cb.call(source.statusWrites())).register(registry);
    GaugeWithCallback.builder().name("llmgw_cluster_synced")
        .help("1 once the namespace's pools, routes and pods have been listed")
        .callback(cb -> cb.call(source.synced() ? 1 : 0)).register(registry);
  }

  @Override
  public void cacheMiss(String adapter) {
    cacheMisses.inc();
  }

  @Override
  public void loaded(String adapter, String address, Duration took) {
    adapterLoads.labelValues("ok").inc();
    adapterLoadSeconds.observe(took.toNanos() / 1e9);
  }

  @Override
  public void loadFailed(String adapter, String address, String reason) {
    adapterLoads.labelValues("failed").inc();
  }

  @Override
  public void unloaded(String adapter, String address) {
    adapterUnloads.inc();
  }

  /** Adapters resident per pod and the global LRU age, read from the pods' reports at scrape time. */
  public void watchAdapters(Adapters adapters, Datastore datastore) {
    GaugeWithCallback.builder().name("llmgw_adapters_resident").help("Adapters each reachable pod holds")
        .labelNames("endpoint").callback(cb -> adapters.report().residentCounts(datastore.allStates())
            .forEach((address, n) -> cb.call(n, address)))
        .register(registry);
    GaugeWithCallback.builder().name("llmgw_adapter_lru_age_seconds")
        .help("Age of the least recently used adapter still resident anywhere (how long idle adapters linger)")
        .callback(cb -> cb.call(adapters.usage().globalLruAge(datastore.allStates()).toMillis() / 1000.0))
        .register(registry);
  }

  public void cacheMissWaitSeconds(double seconds) {
    cacheMissWait.observe(seconds);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** The ext_proc streams open now and the bytes of request bodies they hold while those are still arriving. */
  public void watchStreams(IntSupplier open, LongSupplier bufferedBytes) {
    GaugeWithCallback.builder().name("llmgw_open_streams").help("ext_proc streams open now (--max-streams)")
        .callback(cb -> cb.call(open.getAsInt())).register(registry);
    GaugeWithCallback.builder().name("llmgw_buffered_body_bytes")
        .help("Bytes of request bodies still arriving, over all streams (--max-buffered-bytes)")
        .callback(cb -> cb.call(bufferedBytes.getAsLong())).register(registry);
  }

  /** The index of the pods' KV-cache blocks: its size against its cap, and blocks it could not place. */
  public void watchEngineBlocks(EngineBlockIndex index) {
    GaugeWithCallback.builder().name("llmgw_kv_index_blocks")
        .help("KV-cache blocks the pods' events say they hold, over all pods (capped per pod)")
        .callback(cb -> cb.call(index.blocks())).register(registry);
    CounterWithCallback.builder().name("llmgw_kv_index_orphan_blocks_total")
        .help("Stored blocks skipped because their parent block was never seen (events from before the subscription)")
        .callback(cb -> cb.call(index.orphanBlocks())).register(registry);
  }

  /** The KV-event subscription: batches applied, gaps replayed, losses by cause, restarts seen. */
  public void watchKvEvents(KvEventStats stats) {
    CounterWithCallback.builder().name("llmgw_kv_event_batches_total").help("KV-event batches applied to the index")
        .callback(cb -> cb.call(stats.batches())).register(registry);
    CounterWithCallback.builder().name("llmgw_kv_event_replays_total")
        .help("Gaps in a pod's KV-event sequence asked of its replay socket, and those not filled in time")
        .labelNames("result").callback(cb -> {
          cb.call(stats.replays() - stats.replaysUnanswered(), "filled");
          cb.call(stats.replaysUnanswered(), "unfilled");
        }).register(registry);
    CounterWithCallback.builder().name("llmgw_kv_event_losses_total")
        .help("Times a pod's blocks were dropped because its events could not be applied or believed (gap, garbage, "
            + "over_cap, over_capacity, flood, disconnected); the pod is then routed on the approximate prefix index "
            + "while it relearns")
        .labelNames("reason").callback(cb -> {
          for (EngineBlockIndex.Loss l : EngineBlockIndex.Loss.values()) {
            cb.call(stats.losses(l), l.name().toLowerCase(Locale.ROOT));
          }
        }).register(registry);
    CounterWithCallback.builder().name("llmgw_kv_event_restarts_total")
        .help("Pods whose KV-event numbering started over (an engine restart): their blocks were cleared")
        .callback(cb -> cb.call(stats.restarts())).register(registry);
    CounterWithCallback.builder().name("llmgw_kv_event_bytes_total")
        .help("Bytes of KV-event batches read from the pods (a pod over its share stops being read for a while)")
        .callback(cb -> cb.call(stats.bytes())).register(registry);
  }

  public void inFlightExpired(int n) {
    leasesExpired.inc(n);
  }

  public void idleStreamsExpired(int n) {
    idleExpired.inc(n);
  }

  public void requestDone(String model, String target, String priority, String code) {
    requests.labelValues(model, target, priority, code).inc();
  }

  /** @param reason an {@code ErrorCode}'s wire name or one of ours: a fixed set, never a client's value */
  public void requestFailed(String model, String code, String reason) {
    failures.labelValues(model, code, reason).inc();
  }

  /** @param decision a {@code PrefillChoice.Outcome} label: a fixed set, never a client's value */
  public void disaggregation(String decision) {
    disaggregation.labelValues(decision).inc();
  }

  public void timeToFirstToken(double seconds) {
    timeToFirstToken.observe(seconds);
  }

  public void decisionNanos(long nanos) {
    decision.observe(nanos / 1e9);
  }

  public void tokens(String model, TokenUsage usage) {
    tokens.labelValues(model, "prompt").inc(usage.promptTokens());
    tokens.labelValues(model, "completion").inc(usage.completionTokens());
  }

  public void configRejected() {
    configErrors.inc();
  }

  @Override
  public void scraped(String address, int skipped) {
    if (skipped > 0) {
      skippedLines.labelValues(address).inc(skipped);
    }
  }

  @Override
  public void failed(String address, String what, String error) {
    scrapeErrors.labelValues(address, what).inc();
    LOG.debug("scrape of {}{} failed: {}", address, what, error);
  }
}
