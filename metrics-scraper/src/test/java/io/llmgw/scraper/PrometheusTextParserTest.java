package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.PodMetrics;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrometheusTextParserTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void parsesLabelsEscapesAndSpecialValues() {
    ParsedMetrics p = PrometheusTextParser.parse("""
        # HELP x help
        x{a="1",b="q\\"uote\\\\",c="line\\nbreak"} 2.5 1700000000
        x 3
        y{} +Inf
        z NaN
        """, Set.of("x", "y", "z"));
    assertThat(p.get("x")).hasSize(2);
    assertThat(p.get("x").getFirst().labels()).containsEntry("b", "q\"uote\\").containsEntry("c", "line\nbreak");
    assertThat(p.sum("x")).isEqualTo(5.5);
    assertThat(p.sum("y")).isInfinite();
    assertThat(p.get("z")).hasSize(1);
    assertThat(p.skippedLines()).isZero();
  }

  @Test
  void onlyExactlyTheWantedNamesAreRead() {
    ParsedMetrics p = PrometheusTextParser.parse("""
        vllm:num_requests_waitinG 100
        vllm:num_requests_waiting_total 200
        vllm:num_requests_waitin 300
        xvllm:num_requests_waiting 400
        vllm:num_requests_waiting 4
        """, Engine.VLLM.metricNames());
    assertThat(p.byName()).containsOnlyKeys("vllm:num_requests_waiting");
    assertThat(p.sum("vllm:num_requests_waiting")).isEqualTo(4);
    assertThat(p.skippedLines()).isZero();
  }

  @Test
  void garbageLinesAreSkippedAndCountedNeverFatal() {
    ParsedMetrics p = PrometheusTextParser.parse("""
        vllm:num_requests_waiting{model_name="m"} 4
        vllm:num_requests_waiting{model_name="m" 7
        vllm:num_requests_waiting{model_name=m} 7
        vllm:num_requests_waiting seven
        vllm:num_requests_waiting
        {} 1
        \u0000\u0001 binary
        vllm:num_requests_running 2
        """, Engine.VLLM.metricNames());
    assertThat(p.sum("vllm:num_requests_waiting")).isEqualTo(4);
    assertThat(p.sum("vllm:num_requests_running")).isEqualTo(2);
    assertThat(p.skippedLines()).isEqualTo(6);
  }

  @Test
  void vllmMappingTakesTheNewestLoraSeriesAndIgnoresTheProposedLoadedSeries() {
    PodMetrics m = Engine.VLLM.parse("""
        vllm:num_requests_waiting{model_name="m"} 3
        vllm:num_requests_running{model_name="m"} 5
        vllm:gpu_cache_usage_perc{model_name="m"} 0.25
        vllm:lora_requests_info{max_lora="2",running_lora_adapters="old",waiting_lora_adapters=""} 100
        vllm:lora_requests_info{max_lora="2",running_lora_adapters="a, b",waiting_lora_adapters="c"} 200
        vllm:lora_adapter_loaded{adapter_name="r",level="gpu"} 1
        vllm:lora_adapter_loaded{adapter_name="gone",level="cpu"} 0
        """, NOW);
    assertThat(m.waitingQueue()).isEqualTo(3);
    assertThat(m.running()).isEqualTo(5);
    assertThat(m.kvCacheUsage()).isEqualTo(0.25);
    assertThat(m.maxLoras()).isEqualTo(2);
    assertThat(m.runningAdapters()).containsExactlyInAnyOrder("a", "b");
    assertThat(m.waitingAdapters()).containsExactly("c");
    assertThat(m.listedAdapters()).as("vllm:lora_adapter_loaded is only proposed upstream: servability is /v1/models")
        .isEmpty();
    assertThat(m.reportsAdapter("r")).isFalse();
    assertThat(m.reportsAdapter("a")).isTrue();
    assertThat(m.reportsAdapter("old")).isFalse();
  }

  @Test
  void sglangAndTritonNamesMapToTheSameSignals() {
    PodMetrics s = Engine.fromLabel("sglang").parse("""
        sglang:num_queue_reqs 4
        sglang:num_running_reqs 1
        sglang:token_usage 0.5
        """, NOW);
    assertThat(s).extracting(PodMetrics::waitingQueue, PodMetrics::running, PodMetrics::kvCacheUsage)
        .containsExactly(4, 1, 0.5);
    PodMetrics t = Engine.fromLabel("triton-tensorrt-llm").parse("""
        nv_trt_llm_request_metrics{request_type="waiting"} 6
        nv_trt_llm_request_metrics{request_type="scheduled"} 2
        nv_trt_llm_request_metrics{request_type="context"} 99
        nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="fraction"} 0.75
        nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="used"} 300
        """, NOW);
    assertThat(t).extracting(PodMetrics::waitingQueue, PodMetrics::running, PodMetrics::kvCacheUsage)
        .containsExactly(6, 2, 0.75);
  }

  @Test
  void modelsListSeparatesBaseModelsFromAdapters() throws Exception {
    ServedModels m = ServedModels.parse("""
        {"object":"list","data":[{"id":"base","root":"/models/base"},
         {"id":"sql","parent":"base"},{"id":7},{"id":"x","parent":null}]}""");
    assertThat(m.baseModels()).containsExactlyInAnyOrder("base", "x");
    assertThat(m.adapters()).containsExactly("sql");
  }
}
