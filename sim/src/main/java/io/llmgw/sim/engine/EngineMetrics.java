package io.llmgw.sim.engine;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The vLLM metrics one simulated server exports, named and labelled as released vLLM's {@code /metrics} (V1 engine:
 * {@code model_name} and {@code engine}, the data-parallel rank, here always 0), in its own registry.
 */
public final class EngineMetrics {
  private static final String ENGINE = "0";
  private static final double[] LATENCY_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
      1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Histogram ttft = histogram("vllm:time_to_first_token_seconds", "Time to first token");
  private final Histogram itl = histogram("vllm:inter_token_latency_seconds", "Time between output tokens");
  private final Histogram e2e = histogram("vllm:e2e_request_latency_seconds", "End-to-end request latency");
  private final Histogram queue = histogram("vllm:request_queue_time_seconds", "Time spent waiting before running");
  private final Counter promptTokens = counter("vllm:prompt_tokens", "Prefill tokens processed", "model_name",
      "engine");
  private final Counter generationTokens = counter("vllm:generation_tokens", "Tokens generated", "model_name",
      "engine");
  private final Counter success = counter("vllm:request_success", "Finished requests", "model_name",
      "engine", "finished_reason");
  private final Counter prefixQueries = counter("vllm:prefix_cache_queries", "Prompt tokens looked up in the prefix "
      + "cache", "model_name", "engine");
  private final Counter prefixHits = counter("vllm:prefix_cache_hits", "Prompt tokens found in the prefix cache",
      "model_name", "engine");
  private final Counter activations = counter("sim:lora_activations", "Adapter uses by a batch, by where the adapter "
      + "was (gpu: already in a slot; cpu, disk: swapped in)", "model_name", "adapter_name", "from");
  private final Counter preemptions = counter("vllm:num_preemptions", "Running requests sent back to waiting for a "
      + "higher priority", "model_name", "engine");
  private final Counter disaggregated = counter("sim:pd_requests", "Requests a decode pod served from a prefill pod's "
      + "KV cache (the decode side of llm-d's protocol), by outcome: pulled, or the fallback to prefilling here "
      + "(prefill_failed, transfer_failed, bad_prefiller)", "model_name", "outcome");
  private final String model;

  EngineMetrics(String model, Engine engine) {
    this.model = model;
    gauge("vllm:num_requests_running", "Requests in the running batch",
        cb -> cb.call(engine.runningCount(), model, ENGINE));
    gauge("vllm:num_requests_waiting", "Requests waiting to run", cb -> cb.call(engine.waitingCount(), model, ENGINE));
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage, 1 = full", cb -> cb.call(engine.kvCacheUsage(), model, ENGINE));
    GaugeWithCallback.builder().name("vllm:cache_config_info").help("KV-cache configuration")
        .labelNames("block_size", "num_gpu_blocks", "engine")
        .callback(cb -> cb.call(1, Integer.toString(engine.config().blockSize()),
            Integer.toString(engine.config().numGpuBlocks()), ENGINE))
        .register(registry);
    GaugeWithCallback.builder().name("vllm:lora_requests_info").help("Running stats on lora requests.")
        .labelNames("max_lora", "waiting_lora_adapters", "running_lora_adapters")
        .callback(cb -> loraInfo.forEach((labels, time) -> cb.call(time, engine.config().maxLoras() + "",
            labels.waiting(), labels.running())))
        .register(registry);
    if (engine.config().proposedMetrics()) {
      GaugeWithCallback.builder().name("vllm:lora_adapter_loaded").help("Adapters loaded, by tier (proposed upstream)")
          .labelNames("adapter_name", "level")
          .callback(cb -> {
            for (String a : engine.tiers().cpuResident()) {
              cb.call(1, a, engine.tiers().level(a) == AdapterTiers.Level.GPU ? "gpu" : "cpu");
            }
          })
          .register(registry);
    }
  }

  /** The running and waiting adapters of one {@code vllm:lora_requests_info} series. */
  private record LoraLabels(String running, String waiting) {}

  /**
   * vLLM sets the series of the current label values to the current time on every engine step and never removes the
   * others: a page holds one series per combination seen, and the newest value is the current one. Kept here as vLLM
   * does, bounded to the {@value #LORA_INFO_SERIES} most recently set (vLLM's grows without bound).
   */
  private final Map<LoraLabels, Double> loraInfo = Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<LoraLabels, Double> eldest) {
          return size() > LORA_INFO_SERIES;
        }
      });
  private static final int LORA_INFO_SERIES = 64;

  /** What an engine step running these adapters sets, at {@code epochSeconds}. Called by the engine's thread. */
  void loraStep(Set<String> running, Set<String> waiting, double epochSeconds) {
    loraInfo.put(new LoraLabels(String.join(",", new TreeSet<>(running)), String.join(",", new TreeSet<>(waiting))),
        epochSeconds);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** Requests that started running (each observed its queue time once). Safe from any thread. */
  public long admitted() {
    long n = 0;
    for (var p : queue.collect().getDataPoints()) {
      n += p.getCount();
    }
    return n;
  }

  /** Prompt tokens admitted, and of those found in the prefix cache. Safe from any thread. */
  public long[] promptAndCachedTokens() {
    return new long[] {(long) prefixQueries.labelValues(model, ENGINE).get(),
        (long) prefixHits.labelValues(model, ENGINE).get()};
  }

  /** Adapter name → {batch uses, of which the adapter already sat in a GPU slot}. Safe from any thread. */
  public Map<String, long[]> adapterActivations() {
    Map<String, long[]> out = new TreeMap<>();
    for (var p : activations.collect().getDataPoints()) {
      long n = (long) p.getValue();
      boolean hit = "gpu".equals(p.getLabels().get("from"));
      out.merge(p.getLabels().get("adapter_name"), new long[] {n, hit ? n : 0},
          (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
    }
    return out;
  }

  void admitted(Sequence s, double queueSeconds, int cachedTokens) {
    queue.labelValues(model, ENGINE).observe(queueSeconds);
    promptTokens.labelValues(model, ENGINE).inc(s.request.promptTokens());
    prefixQueries.labelValues(model, ENGINE).inc(s.request.promptTokens());
    prefixHits.labelValues(model, ENGINE).inc(cachedTokens);
  }

  void activated(String adapter, AdapterTiers.Level from) {
    activations.labelValues(model, adapter, from.name().toLowerCase(Locale.ROOT)).inc();
  }

  /** A request that named a prefill pod: {@code pulled}, or why it was prefilled here instead. */
  public void disaggregated(String outcome) {
    disaggregated.labelValues(model, outcome).inc();
  }

  void token(boolean first, double seconds) {
    (first ? ttft : itl).labelValues(model, ENGINE).observe(seconds);
    generationTokens.labelValues(model, ENGINE).inc();
  }

  void preempted() {
    preemptions.labelValues(model, ENGINE).inc();
  }

  /** Requests preempted so far. */
  public double preemptions() {
    return preemptions.labelValues(model, ENGINE).get();
  }

  void finished(String reason, double seconds) {
    success.labelValues(model, ENGINE, reason).inc();
    e2e.labelValues(model, ENGINE).observe(seconds);
  }

  private Histogram histogram(String name, String help) {
    return Histogram.builder().name(name).help(help).labelNames("model_name", "engine")
        .classicUpperBounds(LATENCY_BUCKETS)
        .classicOnly().register(registry);
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder().name(name).help(help).labelNames(labels).register(registry);
  }

  private void gauge(String name, String help, Consumer<GaugeWithCallback.Callback> cb) {
    GaugeWithCallback.builder().name(name).help(help).labelNames("model_name", "engine").callback(cb::accept)
        .register(registry);
  }
}
