package io.llmgw.scraper;

import io.llmgw.picker.PodMetrics;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Maps each engine's metric names (docs/architecture.md, "Wire contracts") onto the picker's {@link PodMetrics}. */
public enum Engine {
  VLLM(Set.of("vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:kv_cache_usage_perc",
      "vllm:gpu_cache_usage_perc", "vllm:lora_requests_info"),
      Set.of("vllm:num_requests_waiting", "vllm:num_requests_running"), true) {
    @Override
    PodMetrics extract(ParsedMetrics p, Instant now) {
      double kv = p.sum("vllm:kv_cache_usage_perc");
      if (Double.isNaN(kv)) {
        kv = p.sum("vllm:gpu_cache_usage_perc");
      }
      Sample lora = newest(p.get("vllm:lora_requests_info"));
      return new PodMetrics(
          count(p.sum("vllm:num_requests_waiting")),
          count(p.sum("vllm:num_requests_running")),
          ratio(kv),
          lora == null ? 0 : parseInt(lora.label("max_lora")),
          lora == null ? Set.of() : csv(lora.label("running_lora_adapters")),
          lora == null ? Set.of() : csv(lora.label("waiting_lora_adapters")),
          Set.of(), Set.of(), now); // what the pod can serve is its /v1/models list, read apart
    }
  },
  SGLANG(Set.of("sglang:num_queue_reqs", "sglang:num_running_reqs", "sglang:token_usage"),
      Set.of("sglang:num_queue_reqs", "sglang:num_running_reqs"), false) {
    @Override
    PodMetrics extract(ParsedMetrics p, Instant now) {
      return new PodMetrics(count(p.sum("sglang:num_queue_reqs")), count(p.sum("sglang:num_running_reqs")),
          ratio(p.sum("sglang:token_usage")), 0, Set.of(), Set.of(), Set.of(), Set.of(), now);
    }
  },
  TRITON(Set.of("nv_trt_llm_request_metrics", "nv_trt_llm_kv_cache_block_metrics"),
      Set.of("nv_trt_llm_request_metrics"), false) {
    @Override
    PodMetrics extract(ParsedMetrics p, Instant now) {
      return new PodMetrics(
          count(p.sumWhere("nv_trt_llm_request_metrics", "request_type", "waiting")),
          count(p.sumWhere("nv_trt_llm_request_metrics", "request_type", "scheduled")),
          ratio(p.sumWhere("nv_trt_llm_kv_cache_block_metrics", "kv_cache_block_type", "fraction")),
          0, Set.of(), Set.of(), Set.of(), Set.of(), now);
    }
  };

  /** Where a scrape reads the whole page. */
  static final String WHOLE_PAGE = "/metrics";

  private final Set<String> metricNames;
  private final Set<String> loadMetricNames;
  private final PrometheusTextParser.Names wanted;
  private final String metricsPath;

  /**
   * {@code filterable}: the engine's server answers {@code /metrics/?name[]=…} with only the series named. vLLM does:
   * it answers {@code GET /metrics} from prometheus-fastapi-instrumentator's route, which writes every series, and
   * everything under it ({@code /metrics/…}, its own mount with the path regex {@code ^/metrics(?P<path>.*)$}) from
   * prometheus_client's ASGI app, which honours {@code name[]}: about a kilobyte where the whole page is tens.
   */
  Engine(Set<String> metricNames, Set<String> loadMetricNames, boolean filterable) {
    this.metricNames = metricNames;
    this.metricsPath = filterable ? filtered(metricNames) : WHOLE_PAGE;
    this.wanted = PrometheusTextParser.names(metricNames);
    this.loadMetricNames = loadMetricNames;
  }

  /**
   * Whether the page says how loaded the server is. One that does not (garbage, another program's metrics) is a failed
   * scrape: read as zeros it would make the pod look idle and draw traffic.
   */
  public boolean reportsLoad(ParsedMetrics parsed) {
    for (String name : loadMetricNames) {
      if (!parsed.get(name).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  public Set<String> loadMetricNames() {
    return loadMetricNames;
  }

  public Set<String> metricNames() {
    return metricNames;
  }

  /** The path a scrape asks first: the whole page, unless the engine's server can be asked for the wanted series. */
  public String metricsPath() {
    return metricsPath;
  }

  /** {@code /metrics/?name[]=…} for each name, in a stable order, percent-encoded. */
  private static String filtered(Set<String> names) {
    StringBuilder path = new StringBuilder("/metrics/");
    char sep = '?';
    for (String name : new TreeSet<>(names)) {
      path.append(sep).append("name%5B%5D=").append(URLEncoder.encode(name, StandardCharsets.UTF_8));
      sep = '&';
    }
    return path.toString();
  }

  /** The names a scrape parses, prepared for the parser once. */
  PrometheusTextParser.Names wantedNames() {
    return wanted;
  }

  abstract PodMetrics extract(ParsedMetrics parsed, Instant now);

  /** vLLM's static cache configuration: read with the model list, not with every scrape (it never changes). */
  private static final String CACHE_CONFIG = "vllm:cache_config_info";
  private static final PrometheusTextParser.Names CACHE_CONFIG_NAMES = PrometheusTextParser.names(Set.of(CACHE_CONFIG));

  /** Where the engine says how large its KV cache is, or null when it does not say. */
  public String cacheConfigPath() {
    return this == VLLM ? filtered(Set.of(CACHE_CONFIG)) : null;
  }

  /**
   * How large the engine's KV cache is, from a page of {@link #cacheConfigPath()} (or the whole page): the
   * {@code num_gpu_blocks} and {@code block_size} labels of vLLM's {@code vllm:cache_config_info}; null when the page
   * does not say how many blocks or says nonsense (a nonsensical block size alone is 0).
   */
  public KvCacheSize kvCacheSize(byte[] page, int from, int to) {
    for (Sample s : PrometheusTextParser.parse(page, from, to, CACHE_CONFIG_NAMES).get(CACHE_CONFIG)) {
      long blocks = wholeNumber(s.label("num_gpu_blocks"), 18);
      if (blocks > 0) {
        return new KvCacheSize(blocks, (int) Math.max(0, wholeNumber(s.label("block_size"), 6)));
      }
    }
    return null;
  }

  /** ASCII digits only, at most {@code digits} of them; -1 otherwise. */
  private static long wholeNumber(String text, int digits) {
    if (text == null || text.isEmpty() || text.length() > digits || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    return Long.parseLong(text);
  }

  public PodMetrics parse(String text, Instant now) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return parse(bytes, 0, bytes.length, now);
  }

  /** Reads a page's bytes {@code [from, to)} as a scrape does, without decoding them first. */
  public PodMetrics parse(byte[] page, int from, int to, Instant now) {
    return extract(PrometheusTextParser.parse(page, from, to, wanted), now);
  }

  /** From the engine-type label value; unknown values fall back to vLLM, the reference protocol. */
  public static Engine fromLabel(String label) {
    if (label == null) {
      return VLLM;
    }
    return switch (label.toLowerCase(Locale.ROOT)) {
      case "sglang" -> SGLANG;
      case "triton", "triton-tensorrt-llm", "trt-llm", "tensorrt-llm" -> TRITON;
      default -> VLLM;
    };
  }

  /** vLLM exports one lora_requests_info series per state change, valued with its timestamp: the newest is current. */
  private static Sample newest(List<Sample> samples) {
    Sample best = null;
    for (Sample s : samples) {
      if (best == null || s.value() > best.value()) {
        best = s;
      }
    }
    return best;
  }

  private static int count(double v) {
    return Double.isNaN(v) || v < 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.round(v));
  }

  private static double ratio(double v) {
    return Double.isNaN(v) ? 0 : Math.max(0, Math.min(1, v));
  }

  private static int parseInt(String s) {
    try {
      return s == null ? 0 : Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The names of a comma-separated label value, trimmed, blanks dropped; read on every scrape, so no stream. */
  static Set<String> csv(String s) {
    if (s == null || s.isEmpty()) {
      return Set.of();
    }
    int comma = s.indexOf(',');
    if (comma < 0) { // one adapter, or none
      String name = s.trim();
      return name.isEmpty() ? Set.of() : Set.of(name);
    }
    Set<String> names = new HashSet<>();
    for (int from = 0; from <= s.length();) {
      int end = comma < 0 ? s.length() : comma;
      String name = s.substring(from, end).trim();
      if (!name.isEmpty()) {
        names.add(name);
      }
      from = end + 1;
      comma = from < s.length() ? s.indexOf(',', from) : -1;
    }
    return Set.copyOf(names);
  }
}
