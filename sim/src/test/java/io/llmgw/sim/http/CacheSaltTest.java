package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.sim.engine.SimConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, items 3 and 4: the simulator reports its cache as vLLM does with --enable-prompt-tokens-details (only
 * when something was cached), and a cache_salt keeps a request's cached blocks apart from others'.
 */
class CacheSaltTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static SimPods pod;
  static final String DOCUMENT = "A shared document that many requests repeat, block after block. ".repeat(10);

  @BeforeAll
  static void start() throws Exception {
    pod = SimPods.start(SimConfig.builder().promptTokensDetails(true).build(), 1, "127.0.0.90", 0);
  }

  @AfterAll
  static void stop() throws Exception {
    pod.close();
  }

  static JsonNode promptDetails(String salt) throws Exception {
    String body = "{\"model\":\"" + SimConfig.DEFAULT_MODEL + "\",\"max_tokens\":1," + (salt == null ? ""
        : "\"cache_salt\":" + salt + ",") + "\"messages\":[{\"role\":\"user\",\"content\":\"" + DOCUMENT + "\"}]}";
    var r = StructuredAnswersTest.post(pod, "/v1/chat/completions", body);
    assertThat(r.statusCode()).as(r.body()).isIn(200, 400);
    return JSON.readTree(r.body());
  }

  @Test
  void aSaltedPromptHitsOnlyBlocksStoredUnderItsSalt() throws Exception {
    assertThat(promptDetails(null).get("usage").get("prompt_tokens_details").isNull())
        .as("nothing cached yet: vLLM writes no details").isTrue();
    assertThat(promptDetails(null).get("usage").get("prompt_tokens_details").get("cached_tokens").asInt())
        .isPositive();
    assertThat(promptDetails("\"tenant-a\"").get("usage").get("prompt_tokens_details").isNull())
        .as("the same prompt under a salt shares nothing with the unsalted").isTrue();
    assertThat(promptDetails("\"tenant-a\"").get("usage").get("prompt_tokens_details").get("cached_tokens").asInt())
        .as("but hits its own salt's blocks").isPositive();
    assertThat(promptDetails("\"tenant-b\"").get("usage").get("prompt_tokens_details").isNull()).isTrue();
    for (String garbage : new String[] {"\"\"", "7", "{}"}) {
      assertThat(promptDetails(garbage).get("error").get("message").asText()).as(garbage)
          .contains("cache_salt");
    }
  }
}
