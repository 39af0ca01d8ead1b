package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: the official OpenAI Node SDK (pinned in cli/src/test/node, installed by .ci/run), at its defaults, through
 * the dev proxy and the EPP to simulated pods on 127.0.0.74-75. Its embeddings default to base64, which a server that
 * answers floats anyway turns into garbage the SDK decodes silently; its streamed Responses call needs vLLM's events.
 */
class OpenAiNodeSdkTest {
  static final Path CHECKS = Path.of("src", "test", "node");

  /** What a script in {@link #CHECKS} printed, once it exited 0 within 60 s. */
  private static String node(String script, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(args));
    Process node = new ProcessBuilder(command).directory(CHECKS.toFile()).redirectErrorStream(true).start();
    boolean exited = node.waitFor(60, TimeUnit.SECONDS);
    String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!exited) {
      node.destroyForcibly();
    }
    assertThat(exited).as("%s ended within 60 s: %s", script, out).isTrue();
    assertThat(node.exitValue()).as(out).isZero();
    return out;
  }

  /** Two simulated pods from {@code firstIp}, the EPP, the dev proxy and the batch service behind it; closes all. */
  private record WithBatches(Rig rig, BatchService batches) implements AutoCloseable {
    static WithBatches start(Path dir, String firstIp, String extraYaml) throws Exception {
      SimPods pods = SimPods.start(SimConfig.builder().adapters(Gateways.ADAPTERS).loras(2, 2).build(), 2, firstIp,
          8000);
      Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, List.of(Gateways.BASE, "sql-lora", "chat-lora"));
      Files.writeString(config, extraYaml, StandardOpenOption.APPEND);
      int batchPort = LoopbackPorts.free();
      Rig rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts(),
          ProxySettings.defaults().withListener("127.0.0.1", 0).withBatchService("127.0.0.1:" + batchPort));
      try {
        return new WithBatches(rig, BatchService.start(BatchSettings.defaults().withListener("127.0.0.1", batchPort)
            .withGateway("127.0.0.1:" + rig.epp().metricsPort(), "http://127.0.0.1:" + rig.proxyPort())
            .withStore("sqlite:" + dir.resolve("batch.db")), Clock.systemUTC()));
      } catch (Exception | Error e) {
        rig.close();
        throw e;
      }
    }

    @Override
    public void close() throws Exception {
      try (rig) {
        batches.close();
      }
    }
  }

  @Test
  void theNodeSdksDefaultEmbeddingsAndAStreamedResponsesCallWork() throws Exception {
    assumeTrue(Gateways.onPath("node") && Files.isDirectory(CHECKS.resolve("node_modules").resolve("openai")),
        "node or the pinned openai package is not installed (.ci/run installs both)");
    try (Rig rig = Gateways.start("127.0.0.74", 2, true)) {
      String out = node("sdk-defaults.mjs", "http://127.0.0.1:" + rig.proxyPort() + "/v1", Gateways.BASE, "sql-lora");
      JsonNode seen = new ObjectMapper().readTree(out.lines().reduce((a, b) -> b).orElseThrow());

      assertThat(seen.get("embeddingLength").asInt()).as("64 floats, not 16 decoded from float text").isEqualTo(64);
      assertThat(seen.get("sameAsFloats").asBoolean()).isTrue();
      assertThat(seen.get("embeddingNorm").asDouble()).isBetween(0.999, 1.001);

      List<String> events = new ArrayList<>();
      seen.get("events").forEach(e -> events.add(e.asText()));
      assertThat(events.getFirst()).isEqualTo("response.created");
      assertThat(events.getLast()).isEqualTo("response.completed");
      assertThat(events.stream().filter("response.output_text.delta"::equals)).hasSize(4);
      assertThat(seen.get("text").asText()).isNotBlank().isEqualTo(seen.get("completedText").asText());
      assertThat(seen.get("completedModel").asText()).as("rewritten back to the route's name").isEqualTo("sql-lora");
      assertThat(seen.get("outputTokens").asInt()).isEqualTo(4);
    }
  }

  /**
   * Issue 32, item 7: the README's Node block, as written there (its address moved to this test's proxy), runs against
   * the gateway and the batch service: chat, a stream, embeddings at the SDK's default encoding, a batch created.
   */
  @Test
  void theReadmesNodeBlockRunsAsWritten(@TempDir Path dir) throws Exception {
    assumeTrue(Gateways.onPath("node") && Files.isDirectory(CHECKS.resolve("node_modules").resolve("openai")),
        "node or the pinned openai package is not installed (.ci/run installs both)");
    String readme = Files.readString(Path.of("..", "README.md"));
    int start = readme.indexOf("```js\n", readme.indexOf("## Try every endpoint")) + "```js\n".length();
    String block = readme.substring(start, readme.indexOf("```", start));
    assertThat(block).contains("http://127.0.0.1:8080/v1");
    try (WithBatches gateway = WithBatches.start(dir, "127.0.0.76", "")) {
      Rig rig = gateway.rig();
      // beside node_modules, where the import resolves; removed whatever happens
      Path script = Files.writeString(CHECKS.resolve("readme-" + ProcessHandle.current().pid() + ".mjs"),
          block.replace("http://127.0.0.1:8080/v1", "http://127.0.0.1:" + rig.proxyPort() + "/v1"));
      try {
        assertThat(node(script.getFileName().toString())).contains("64 floats (sent as base64, the SDK's default)")
            .containsPattern("batch_\\w+ validating");
      } finally {
        Files.deleteIfExists(script);
      }
    }
  }

  /**
   * Issue 53: the Vercel AI SDK's requests (the Responses API, its default for openai(model)) run as a batch through
   * the OpenAI SDK's files and batches, end to end: the gateway, the batch service, simulated pods on 127.0.0.79-80.
   */
  @Test
  void theVercelAiSdksResponsesRequestsRunAsABatch(@TempDir Path dir) throws Exception {
    assumeTrue(Gateways.onPath("node") && Files.isDirectory(CHECKS.resolve("node_modules").resolve("ai")),
        "node or the pinned SDKs are not installed (.ci/run installs both)");
    String batchObjective = FileModeYaml.SEPARATOR + """
        apiVersion: inference.networking.x-k8s.io/v1alpha2
        kind: InferenceObjective
        metadata: {name: batch}
        spec: {priority: -100, poolRef: {name: sim-pool}}
        """;
    try (WithBatches gateway = WithBatches.start(dir, "127.0.0.79", batchObjective)) {
      String out = node("sdk-batches.mjs", "http://127.0.0.1:" + gateway.rig().proxyPort() + "/v1", "sql-lora");
      JsonNode seen = new ObjectMapper().readTree(out.lines().reduce((a, b) -> b).orElseThrow());

      assertThat(seen.get("liveText").asText()).isNotBlank();
      assertThat(seen.get("urls")).as("the SDK's default API").allSatisfy(u -> assertThat(u.asText())
          .isEqualTo("/v1/responses"));
      assertThat(seen.get("status").asText()).as(out).isEqualTo("completed");
      assertThat(seen.get("counts").get("completed").asInt()).as(out).isEqualTo(2);
      assertThat(seen.get("counts").get("failed").asInt()).isZero();
      assertThat(seen.get("answers")).hasSize(2).allSatisfy(a -> {
        assertThat(a.get("status").asInt()).isEqualTo(200);
        assertThat(a.get("object").asText()).isEqualTo("response");
        assertThat(a.get("model").asText()).as("the route's name, as to a live client").isEqualTo("sql-lora");
        assertThat(a.get("text").asText()).isNotBlank();
      });
      assertThat(seen.get("imagePurpose").asText()).isEqualTo("user_data");
      assertThat(seen.get("imageBytes").asInt()).isEqualTo(6);
      assertThat(seen.get("refused").get("status").asInt()).isEqualTo(400);
      assertThat(seen.get("refused").get("message").asText()).contains("purpose 'batch'");
    }
  }
}
