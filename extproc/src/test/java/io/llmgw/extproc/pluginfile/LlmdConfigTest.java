package io.llmgw.extproc.pluginfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.ConfigException;
import io.llmgw.picker.config.PluginSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: llm-d-router v0.10's configuration files, as its Helm chart renders them and its guides show them, read as
 * this EPP's plugins; what cannot be honoured refused naming plugin, parameter and the nearest thing offered.
 */
class LlmdConfigTest {
  private static final String HEAD = "apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\n";

  private static PluginConfigFile.Loaded read(String body, List<String> warnings) throws ConfigException {
    return PluginConfigFile.parseFile("f.yaml", HEAD + body, warnings::add);
  }

  private static List<String> types(PluginConfigFile.Loaded loaded) {
    return loaded.config().plugins().stream().map(p -> p.name() + "=" + p.type()).toList();
  }

  @Test
  void theChartsDefaultFileKeepsItsScorersAndAbsorbsItsDataLayer() throws Exception {
    var loaded = read("""
        plugins:
        - type: queue-scorer
        - type: kv-cache-utilization-scorer
        - type: prefix-cache-scorer
        - type: metrics-data-source
          parameters: {scheme: "http", path: "/metrics", insecureSkipVerify: true, interval: 100ms}
        - type: core-metrics-extractor
        - type: openai-parser
        requestHandler: {parsers: [{pluginRef: openai-parser}]}
        schedulingProfiles:
        - name: default
          plugins:
          - {pluginRef: queue-scorer, weight: 2}
          - {pluginRef: kv-cache-utilization-scorer, weight: 2}
          - {pluginRef: prefix-cache-scorer, weight: 3}
        """, new ArrayList<>());
    assertThat(types(loaded)).containsExactly("queue-scorer=queue-scorer",
        "kv-cache-utilization-scorer=kv-cache-utilization-scorer", "prefix-cache-scorer=prefix-cache-scorer");
    assertThat(loaded.settings().scrapeInterval()).hasMillis(100);
    assertThat(loaded.config().profiles().getFirst().plugins()).hasSize(3);
  }

  @Test
  void payloadAgnosticAndLatencyFilesBecomeTheirCounterpartsHere() throws Exception {
    List<String> warnings = new ArrayList<>();
    var agnostic = read("""
        plugins: [{type: passthrough-parser}, {type: active-request-scorer}, {type: session-affinity-scorer}]
        requestHandler: {parsers: [{pluginRef: passthrough-parser}]}
        schedulingProfiles: [{name: default, plugins: [{pluginRef: active-request-scorer, weight: 1},
          {pluginRef: session-affinity-scorer, weight: 1}]}]
        """, warnings);
    assertThat(types(agnostic)).containsExactly("active-request-scorer=least-request-scorer",
        "session-affinity-scorer=session-affinity-scorer");
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("passthrough-parser", "400"));
    var latency = read("""
        plugins:
        - type: predicted-latency-producer
        - {name: strict, type: prefix-cache-affinity-filter, parameters: {affinityThreshold: 0.99}}
        - type: latency-scorer
        - type: weighted-random-picker
        - type: slo-headroom-tier-filter
        - type: latency-slo-admitter
        schedulingProfiles:
        - name: default
          plugins: [{pluginRef: predicted-latency-producer}, {pluginRef: strict},
            {pluginRef: slo-headroom-tier-filter}, {pluginRef: latency-scorer}, {pluginRef: weighted-random-picker}]
        """, warnings);
    assertThat(types(latency)).containsExactly("latency-scorer=latency-scorer",
        "weighted-random-picker=weighted-random-picker", "slo-headroom-tier-filter=latency-objective-filter");
    assertThat(latency.config().profiles().getFirst().plugins()).extracting(r -> r.pluginRef())
        .containsExactly("slo-headroom-tier-filter", "latency-scorer", "weighted-random-picker");
  }

  @Test
  void precisePrefixFollowsEachPodsEventsAtLlmdsPortAndReadsTheTokenizerHere() throws Exception {
    var loaded = read(
        """
            plugins:
            - {type: token-producer, parameters: {tokenizer: sim}}
            - type: endpoint-notification-source
            - type: precise-prefix-cache-producer
              parameters:
                tokenProcessorConfig: {blockSize: 64}
                indexerConfig: {kvBlockIndexConfig: {enableMetrics: true}}
                kvEventsConfig: {topicFilter: "kv@", podDiscoveryConfig: {socketPort: 5600, replaySocketPort: 5601}}
            - {type: prefix-cache-scorer, parameters: {prefixMatchInfoProducerName: precise-prefix-cache-producer}}
            - type: queue-scorer
            - type: max-score-picker
            dataLayer:
              sources:
              - {pluginRef: endpoint-notification-source, extractors: [{pluginRef: precise-prefix-cache-producer}]}
            schedulingProfiles:
            - name: default
              plugins: [{pluginRef: prefix-cache-scorer, weight: 2}, {pluginRef: queue-scorer}, {pluginRef: max-score-picker}]
            """,
        new ArrayList<>());
    assertThat(types(loaded)).containsExactly("token-producer=prompt-tokens-producer",
        "prefix-cache-scorer=precise-prefix-cache-scorer", "queue-scorer=queue-scorer",
        "max-score-picker=max-score-picker");
    assertThat(loaded.settings()).isEqualTo(new FileSettings(5600, 5601, "kv@", null));
    assertThat(loaded.config().plugins().getFirst().parameters()).containsEntry("tokenizer", "sim");
  }

  /** llm-d's sample (deploy/config/epp-precise-prefix-cache-config.yaml): a vLLM render server tokenizes. */
  @Test
  void theTokenProducersRenderServerIsAskedWithItsModelAndTimeLimit() throws Exception {
    var loaded = read("""
        plugins:
        - type: token-producer
          parameters: {modelName: hf-repo/model-name, vllm: {url: "http://127.0.0.1:8000", timeout: 2s}}
        - {type: precise-prefix-cache-producer, parameters: {tokenProcessorConfig: {blockSize: 64}}}
        - {type: prefix-cache-scorer, parameters: {prefixMatchInfoProducerName: precise-prefix-cache-producer}}
        schedulingProfiles: [{name: default, plugins: [{pluginRef: prefix-cache-scorer, weight: 2}]}]
        """, new ArrayList<>());
    assertThat(loaded.config().plugins().getFirst().parameters()).containsEntry("tokenizer",
        "vllm:http://127.0.0.1:8000").containsEntry("model", "hf-repo/model-name")
        .containsEntry("renderTimeoutMillis", 2000);
    assertThat(read("""
        plugins: [{type: token-producer, parameters: {modelName: m, vllm: {}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>()).config().plugins().getFirst().parameters())
        .as("llm-d's default: a sidecar in the EPP's pod").containsEntry("tokenizer", "vllm:http://localhost:8000");
  }

  /** llm-d's disaggregation guide (docs/disaggregation.md): pods chosen by a label selector, a prompt-length floor. */
  @Test
  void theDisaggregationGuidesLabelSelectorsAndPromptFloorAreKept() throws Exception {
    var loaded = read("""
        plugins:
        - type: label-selector-filter
          name: prefill-pods
          parameters: {matchExpressions: [{key: role, operator: In, values: [prefill]}]}
        - {type: label-selector-filter, name: decode-pods, parameters: {matchLabels: {role: decode}}}
        - {type: approx-prefix-cache-producer, parameters: {autoTune: false, blockSizeTokens: 5}}
        - type: prefix-cache-scorer
        - type: max-score-picker
        - {type: prefix-based-pd-decider, parameters: {nonCachedTokens: 8, promptTokens: 100}}
        - type: disagg-profile-handler
          parameters: {profiles: {prefill: prefill, decode: decode}, deciders: {prefill: prefix-based-pd-decider}}
        schedulingProfiles:
        - {name: prefill, plugins: [{pluginRef: prefill-pods}, {pluginRef: max-score-picker},
            {pluginRef: prefix-cache-scorer}]}
        - {name: decode, plugins: [{pluginRef: decode-pods}, {pluginRef: max-score-picker},
            {pluginRef: prefix-cache-scorer}]}
        """, new ArrayList<>());
    PluginSpec handler = loaded.config().plugins().stream().filter(p -> p.type().equals("pd-profile-handler"))
        .findFirst().orElseThrow();
    assertThat(handler.parameters()).containsEntry("threshold", 8).containsEntry("minPromptTokens", 100);
    assertThat(loaded.config().plugins().getFirst().parameters().get("matchExpressions"))
        .isEqualTo(List.of(java.util.Map.of("key", "role", "operator", "In", "values", List.of("prefill"))));
  }

  @Test
  void disaggregationBecomesThePdHandlerWithLlmdsRule() throws Exception {
    var loaded = read("""
        plugins:
        - {type: approx-prefix-cache-producer, parameters: {maxPrefixTokensToMatch: 16384, lruCapacityPerServer: 31250}}
        - type: prefix-cache-scorer
        - type: prefill-filter
        - type: decode-filter
        - type: max-score-picker
        - {type: disagg-profile-handler, parameters: {deciders: {prefill: prefix-based-pd-decider}}}
        - {type: prefix-based-pd-decider, parameters: {nonCachedTokens: 16}}
        schedulingProfiles:
        - {name: prefill, plugins: [{pluginRef: prefill-filter}, {pluginRef: prefix-cache-scorer, weight: 2}]}
        - {name: decode, plugins: [{pluginRef: decode-filter}, {pluginRef: prefix-cache-scorer, weight: 2}]}
        """, new ArrayList<>());
    PluginSpec handler = loaded.config().plugins().stream().filter(p -> p.type().equals("pd-profile-handler"))
        .findFirst().orElseThrow();
    assertThat(handler.parameters()).containsEntry("threshold", 16).containsEntry("costAware", false);
    PluginSpec prefix = loaded.config().plugins().stream().filter(p -> p.type().equals("prefix-cache-scorer"))
        .findFirst().orElseThrow();
    assertThat(prefix.parameters()).containsEntry("lruCapacityPerServer", 31250)
        .containsEntry("maxPrefixBlocksToMatch", 256);
  }

  @Test
  void whatCannotBeHonouredIsRefusedByNameWithTheNearestThingOffered() {
    assertThatThrownBy(() -> read("""
        plugins: [{type: token-producer, parameters: {vllm: {url: "http://127.0.0.1:8000"}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("plugins[0].parameters.modelName")
        .hasMessageContaining("the model the render server serves");
    assertThatThrownBy(() -> read("""
        plugins: [{type: token-producer, parameters: {modelName: m, vllm: {url: "unix:///run/render.sock"}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("vllm.url").hasMessageContaining("http://HOST:PORT");
    assertThatThrownBy(() -> read("""
        plugins: [{type: token-producer, parameters: {modelName: m, vllm: {mmTimeout: 30s}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("vllm.mmTimeout").hasMessageContaining("vllm.timeout");
    assertThatThrownBy(() -> read("""
        plugins: [{type: token-producer, parameters: {modelName: m, estimate: {}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("parameter estimate").hasMessageContaining("approximately");
    assertThatThrownBy(() -> read("""
        plugins: [{type: precise-prefix-cache-producer, parameters: {kvEventsConfig: {zmqEndpoint: "tcp://x:5557"}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("kvEventsConfig.zmqEndpoint").hasMessageContaining("socketPort");
    assertThatThrownBy(() -> read("""
        plugins: [{type: metrics-data-source, parameters: {scheme: https}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("parameter scheme").hasMessageContaining("plain HTTP");
    assertThatThrownBy(() -> read("""
        plugins: [{type: active-request-scorer, parameters: {idleThreshold: 3}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("idleThreshold").hasMessageContaining("it takes");
    assertThatThrownBy(() -> read("""
        plugins: [{type: vllmgrpc-parser}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("vllmgrpc-parser").hasMessageContaining("openai-parser");
    assertThatThrownBy(() -> read("""
        featureGates: [somethingNew]
        plugins: [{type: queue-scorer}]
        schedulingProfiles: [{name: default, plugins: [{pluginRef: queue-scorer}]}]
        """, new ArrayList<>())).hasMessageContaining("somethingNew");
    // garbage where mappings and numbers belong: refused, never dropped with an absorbed plugin
    assertThatThrownBy(() -> read("""
        plugins: [{type: metrics-data-source, parameters: [1, 2]}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("plugins[0].parameters").hasMessageContaining("mapping");
    assertThatThrownBy(() -> read("""
        plugins: [{type: precise-prefix-cache-producer, parameters: {kvEventsConfig: 5}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("kvEventsConfig").hasMessageContaining("mapping");
    assertThatThrownBy(() -> read("""
        plugins: [{type: precise-prefix-cache-producer, parameters: {kvEventsConfig: {podDiscoveryConfig:
          {socketPort: "many"}}}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("socketPort").hasMessageContaining("whole number");
    assertThatThrownBy(() -> read("""
        plugins: [{type: metrics-data-source, parameters: {interval: soon}}]
        schedulingProfiles: [{name: default, plugins: []}]
        """, new ArrayList<>())).hasMessageContaining("interval").hasMessageContaining("soon");
    assertThatThrownBy(() -> read("""
        plugins: [{type: queue-scorer}]
        requestHandler: {parsers: [{pluginRef: nobody}]}
        schedulingProfiles: [{name: default, plugins: [{pluginRef: queue-scorer}]}]
        """, new ArrayList<>())).hasMessageContaining("requestHandler.parsers[0].pluginRef")
        .hasMessageContaining("nobody");
    assertThatThrownBy(() -> PluginConfigFile.parseFile("f.yaml", """
        apiVersion: llm-d.ai/v9
        kind: EndpointPickerConfig
        plugins: []
        schedulingProfiles: []
        """, w -> {})).hasMessageContaining("llm-d.ai/v1alpha1");
  }
}
