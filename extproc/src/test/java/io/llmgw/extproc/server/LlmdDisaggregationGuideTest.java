package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.scraper.FakeModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: llm-d's disaggregation guide (llm-d-router docs/disaggregation.md, its first sample as written: pods chosen
 * by a label selector on their {@code role} label, the approximate prefix producer, {@code prefix-based-pd-decider}
 * with {@code nonCachedTokens: 8}) serving real ext_proc frames: a prompt with more than 8 uncached tokens is computed
 * on the prefill pod and decoded on the decode pod. Pods at 127.0.0.{101,102}, labelled {@code role: prefill} and
 * {@code role: decode} (not llm-d.ai/role). A prompt's length is estimated here from the whole body (4 bytes a token),
 * llm-d from the prompt alone, so at this sample's tiny threshold even a one-word completion body is split here.
 */
class LlmdDisaggregationGuideTest {
  static final String GUIDE = """
      apiVersion: llm-d.ai/v1alpha1
      kind: EndpointPickerConfig
      plugins:
        - type: label-selector-filter
          name: "prefill-pods"
          parameters:
            matchExpressions:
              - key: "role"
                operator: In
                values: ["prefill"]
        - type: label-selector-filter
          name: "decode-pods"
          parameters:
            matchExpressions:
              - key: "role"
                operator: In
                values: ["decode"]
        - type: approx-prefix-cache-producer
          parameters:
            autoTune: false
            blockSizeTokens: 5
            maxPrefixTokensToMatch: 1280
            lruCapacityPerServer: 31250
        - type: prefix-cache-scorer
        - type: max-score-picker
        - type: prefix-based-pd-decider
          parameters:
            nonCachedTokens: 8
            promptTokens: 0
        - type: disagg-profile-handler
          parameters:
            profiles:
              prefill: prefill
              decode: decode
            deciders:
              prefill: prefix-based-pd-decider
      schedulingProfiles:
        - name: prefill
          plugins:
            - pluginRef: "prefill-pods"
            - pluginRef: "max-score-picker"
            - pluginRef: "prefix-cache-scorer"
        - name: decode
          plugins:
            - pluginRef: "decode-pods"
            - pluginRef: "max-score-picker"
            - pluginRef: "prefix-cache-scorer"
      """;
  static final List<FakeModelServer> pods = new ArrayList<>();
  static Path config;
  static Epp epp;
  static ManagedChannel channel;
  static ExternalProcessorGrpc.ExternalProcessorStub stub;

  @BeforeAll
  static void start() throws Exception {
    pods.add(new FakeModelServer("127.0.0.101", 0));
    pods.add(new FakeModelServer("127.0.0.102", pods.getFirst().port()));
    String[] roles = {"prefill", "decode"};
    StringBuilder yaml = new StringBuilder(FileModeYaml.route("base", "pd-pool", "base-model", 0))
        .append(FileModeYaml.SEPARATOR).append(FileModeYaml.pool("pd-pool", "pd", pods.getFirst().port()));
    for (int i = 0; i < 2; i++) {
      pods.get(i).setModels("base-model", List.of());
      yaml.append(FileModeYaml.SEPARATOR).append("""
          apiVersion: v1
          kind: Pod
          metadata: {name: pd-%d, labels: {app: pd, role: %s}}
          status: {podIP: 127.0.0.%d, phase: Running, conditions: [{type: Ready, status: "True"}]}
          """.formatted(i, roles[i], 101 + i));
    }
    config = Files.createTempFile("llmgw-pd-guide", ".yaml");
    Files.writeString(config, yaml);
    epp = Epp.start(EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withScheduling(PluginConfigFile.parse("disaggregation.md", GUIDE, w -> {})), Clock.systemUTC());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", epp.grpcPort()).usePlaintext().build();
    stub = ExternalProcessorGrpc.newStub(channel);
    await().atMost(Duration.ofSeconds(10)).until(() -> pods.stream()
        .allMatch(p -> epp.datastore().scrapeState(p.address()).metrics().baseModels().contains("base-model")));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow();
    epp.close();
    pods.forEach(FakeModelServer::close);
    Files.deleteIfExists(config);
  }

  static io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse route(String prompt) throws Exception {
    ExtProcCall call = ExtProcCall.open(stub);
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"base-model\",\"prompt\":\"" + prompt + "\"}", true));
    var r = call.next();
    call.cancel();
    return r;
  }

  @Test
  void aLongPromptIsPrefilledOnThePodTheSelectorCallsPrefill() throws Exception {
    var r = route("a prompt long enough to be worth a prefill pod, well over eight tokens of its own");
    assertThat(setHeader(r, EppProtocol.DESTINATION)).isEqualTo(pods.get(1).address());
    assertThat(setHeader(r, EppProtocol.PREFILLER)).isEqualTo(pods.get(0).address());
  }
}
