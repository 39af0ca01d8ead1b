package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.loadgen.Rig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 5: three SDKs nobody here wrote, at their defaults, through the dev proxy and the EPP to simulated
 * pods started as vLLM with --enable-auto-tool-choice (the quickstart's): the OpenAI Node SDK's tool round trip and
 * its zod-parsed structured output, LangChain JS's withStructuredOutput and bound tools, and the Vercel AI SDK's
 * generateObject and a tool round trip that generateText runs itself (over the Responses API, its default).
 */
class SdkToolsAndSchemasTest {
  @Test
  void toolRoundTripsAndStructuredOutputsWorkInThreeSdksAtTheirDefaults() throws Exception {
    Path checks = OpenAiNodeSdkTest.CHECKS;
    assumeTrue(Gateways.onPath("node") && Files.isDirectory(checks.resolve("node_modules").resolve("ai")),
        "node or the pinned SDKs are not installed (.ci/run installs both)");
    try (Rig rig = Gateways.start("127.0.0.78", 2, true)) {
      Process node = new ProcessBuilder(List.of("node", "sdk-tools.mjs", "http://127.0.0.1:" + rig.proxyPort()
          + "/v1", "sql-lora")).directory(checks.toFile()).redirectErrorStream(true).start();
      boolean exited = node.waitFor(90, TimeUnit.SECONDS);
      String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!exited) {
        node.destroyForcibly();
      }
      assertThat(exited).as("the SDKs ended within 90 s: %s", out).isTrue();
      assertThat(node.exitValue()).as(out).isZero();
      JsonNode seen = new ObjectMapper().readTree(out.lines().reduce((a, b) -> b).orElseThrow());

      assertThat(seen.get("openaiFinish").asText()).isEqualTo("tool_calls");
      assertThat(seen.get("openaiCallArgs").get("city").asText()).isNotBlank();
      assertThat(seen.get("openaiAnswer").asText()).as("the answer after the tool's result").isNotBlank();
      JsonNode parsed = seen.get("openaiParsed");
      assertThat(parsed.get("unit").asText()).isIn("celsius", "fahrenheit");
      assertThat(parsed.get("days").asInt()).isBetween(1, 7);

      assertThat(seen.get("langchainStructured").get("rating").asDouble()).isBetween(1.0, 10.0);
      assertThat(seen.get("langchainStructured").get("punchline").asText()).isNotBlank();
      assertThat(seen.get("langchainToolCalls").get(0).get("name").asText()).isEqualTo("get_weather");
      assertThat(seen.get("langchainToolCalls").get(0).get("args").get("city").asText()).isNotBlank();

      assertThat(seen.get("aiObject").get("setup").asText()).isNotBlank();
      assertThat(seen.get("aiExecuted").asText()).as("the AI SDK ran the tool the pod called").isNotBlank();
      assertThat(seen.get("aiSteps").asInt()).as("a call, then the answer").isEqualTo(2);
      assertThat(seen.get("aiText").asText()).isNotBlank();
    }
  }
}
