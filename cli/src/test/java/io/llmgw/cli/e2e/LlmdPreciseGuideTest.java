package io.llmgw.cli.e2e;

import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.chat;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.metric;
import static io.llmgw.cli.e2e.PrecisePrefixAcrossReplicasTest.served;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.cli.ServeCommand;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 48: llm-d-router's precise-prefix sample configuration (deploy/config/epp-precise-prefix-cache-config.yaml,
 * as llm-d writes it: token-producer with a vLLM render server, precise-prefix-cache-producer, prefix-cache-scorer
 * weight 2, kv-cache-utilization and queue scorers) given to {@code serve --plugins-config}, end to end: simulated pods
 * publish their KV-cache events, one more simulated pod plays llm-d's render sidecar ({@code vllm launch render}), and a
 * document's follow-up questions reach the pod that cached it because the render server's token ids match the pods'
 * events.
 */
class LlmdPreciseGuideTest {
  static final String GUIDE = """
      apiVersion: llm-d.ai/v1alpha1
      kind: EndpointPickerConfig
      plugins:
        - type: token-producer
          parameters:
            modelName: %s
            vllm:
              url: %s
        - type: endpoint-notification-source
        - type: metrics-data-source
        - type: core-metrics-extractor
        - type: single-profile-handler
        - type: decode-filter
        - type: precise-prefix-cache-producer
          parameters:
            tokenProcessorConfig:
              blockSize: 64
            indexerConfig:
              kvBlockIndexConfig:
                enableMetrics: true
        - type: prefix-cache-scorer
          parameters:
            prefixMatchInfoProducerName: precise-prefix-cache-producer
        - type: kv-cache-utilization-scorer
        - type: queue-scorer
        - type: max-score-picker
      dataLayer:
        sources:
          - pluginRef: metrics-data-source
            extractors:
              - pluginRef: core-metrics-extractor
          - pluginRef: endpoint-notification-source
            extractors:
              - pluginRef: precise-prefix-cache-producer
      schedulingProfiles:
        - name: default
          plugins:
            - pluginRef: decode-filter
            - pluginRef: prefix-cache-scorer
              weight: 2.0
            - pluginRef: kv-cache-utilization-scorer
              weight: 1.0
            - pluginRef: queue-scorer
              weight: 1.0
            - pluginRef: max-score-picker
      """;

  @TempDir
  Path dir;

  @Test
  void followUpsFindTheirDocumentThroughTheRenderServersTokenIds() throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).capacity(16, 64, 4096)
        .kvEvents(KvEventsConfig.DEFAULT_ON).seed(13).build();
    SimPods pods = SimPods.start(sim, List.of("127.0.0.121", "127.0.0.122", "127.0.0.123"), 8000);
    SimPods render = SimPods.start(SimConfig.builder().adapters(List.of()).seed(14).build(), List.of("127.0.0.124"),
        8000);
    try {
      Path gateway = Rig.writeConfig(dir.resolve("gateway.yaml"), pods, List.of(SimConfig.DEFAULT_MODEL));
      Path plugins = Files.writeString(dir.resolve("epp-precise-prefix-cache-config.yaml"),
          GUIDE.formatted(SimConfig.DEFAULT_MODEL, "http://" + render.pods().getFirst().address()));
      ServeCommand serve = new ServeCommand();
      new CommandLine(serve).parseArgs("--config", gateway.toString(), "--plugins-config", plugins.toString());
      EppSettings settings = serve.settings().onLoopbackEphemeralPorts();
      assertThat(settings.scrape().kvEvents().port()).as("llm-d's per-pod default").isEqualTo(5557);
      try (Rig rig = Rig.start(pods, settings, ProxySettings.defaults().withListener("127.0.0.1", 0), 1)) {
        List<String> documents = new ArrayList<>();
        List<SimServer> cachedOn = new ArrayList<>();
        for (int doc = 0; doc < 6; doc++) {
          documents.add(("Document " + doc + " tells a story all of its own. ").repeat(100)); // about 1,000 tokens
          cachedOn.add(served(rig, chat(documents.get(doc), "Summarise it.")));
        }
        await().atMost(Duration.ofSeconds(10))
            .until(() -> metric(rig.epps().getFirst(), "llmgw_kv_index_blocks") >= 6 * 55);
        int followed = 0;
        for (int doc = 0; doc < 6; doc++) {
          followed += served(rig, chat(documents.get(doc), "And then?")) == cachedOn.get(doc) ? 1 : 0;
        }
        assertThat(followed).as("follow-ups that met their document's cache").isEqualTo(6);
        assertThat(render.pods().getFirst().renders()).as("every chat request rendered there, once").isEqualTo(12);
        assertThat(render.pods().getFirst().engine().metrics().admitted()).as("the render server generates nothing")
            .isZero();
      }
    } finally {
      pods.close();
      render.close();
    }
  }
}
