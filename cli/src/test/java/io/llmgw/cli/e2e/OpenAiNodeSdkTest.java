package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.bench.load.Rig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: the official OpenAI Node SDK (pinned in cli/src/test/node, installed by .ci/run), at its defaults, through
 * the dev proxy and the EPP to simulated pods on 127.0.0.74-75. Its embeddings default to base64, which a server that
 * answers floats anyway turns into garbage the SDK decodes silently; its streamed Responses call needs vLLM's events.
 */
class OpenAiNodeSdkTest {
  static final Path CHECKS = Path.of("src", "test", "node");

  @Test
  void theNodeSdksDefaultEmbeddingsAndAStreamedResponsesCallWork() throws Exception {
    assumeTrue(Gateways.onPath("node") && Files.isDirectory(CHECKS.resolve("node_modules").resolve("openai")),
        "node or the pinned openai package is not installed (.ci/run installs both)");
    try (Rig rig = Gateways.start("127.0.0.74", 2, true)) {
      Process node = new ProcessBuilder("node", "sdk-defaults.mjs", "http://127.0.0.1:" + rig.proxyPort() + "/v1",
          Gateways.BASE, "sql-lora").directory(CHECKS.toFile()).redirectErrorStream(true).start();
      boolean exited = node.waitFor(60, TimeUnit.SECONDS);
      String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!exited) {
        node.destroyForcibly();
      }
      assertThat(exited).as("the script ended within 60 s: %s", out).isTrue();
      assertThat(node.exitValue()).as(out).isZero();
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
}
