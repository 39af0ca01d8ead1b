package io.llmgw.sim.http;

import static io.llmgw.sim.http.SimServerTest.JSON;
import static io.llmgw.sim.http.SimServerTest.MODEL;
import static io.llmgw.sim.http.SimServerTest.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimTokens;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: the simulator as vLLM's render server ({@code vllm launch render}, llm-d's tokenizer sidecar), over a real
 * socket on 127.0.0.83: the ids are what the pod tokenizes for the same request, chat as one object and completions
 * as a list; nothing is generated; garbage is a 400.
 */
class RenderEndpointTest {
  static SimPods pod;

  @BeforeAll
  static void start() throws Exception {
    pod = SimPods.start(SimConfig.builder().adapters(List.of()).build(), 1, "127.0.0.83", 0);
  }

  @AfterAll
  static void stop() throws Exception {
    pod.close();
  }

  static int[] ids(JsonNode tokenIds) {
    int[] out = new int[tokenIds.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = tokenIds.get(i).asInt();
    }
    return out;
  }

  @Test
  void chatAndCompletionsAnswerTheTokenIdsThePodWouldCache() throws Exception {
    var chat = post(pod, "/v1/chat/completions/render", "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":"
        + "\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true}");
    assertThat(chat.statusCode()).isEqualTo(200);
    assertThat(ids(JSON.readTree(chat.body()).get("token_ids")))
        .containsExactly(SimTokens.encode("system: Be brief.\nuser: Hi\n"));
    var completion = post(pod, "/v1/completions/render", "{\"model\":\"" + MODEL + "\",\"prompt\":\"plain prompt\"}");
    JsonNode list = JSON.readTree(completion.body());
    assertThat(list.isArray()).isTrue();
    assertThat(ids(list.get(0).get("token_ids"))).containsExactly(SimTokens.encode("plain prompt"));
    var tools = post(pod, "/v1/chat/completions/render", "{\"model\":\"" + MODEL + "\",\"tools\":[{\"type\":"
        + "\"function\",\"function\":{\"name\":\"f\"}}],\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
    assertThat(tools.statusCode()).as("a chat with tools renders, its tools in the prompt, whatever the pod serves")
        .isEqualTo(200);
    assertThat(ids(JSON.readTree(tools.body()).get("token_ids"))).containsExactly(SimTokens.encode(
        "tools: [{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]\nuser: Hi\n"));
    assertThat(pod.pods().getFirst().engine().metrics().admitted()).as("rendering generates nothing").isZero();
    assertThat(pod.pods().getFirst().renders()).isEqualTo(3);
  }

  @Test
  void garbageIsA400() throws Exception {
    for (String body : new String[] {"not json", "{\"messages\":[]}", "[1]"}) {
      var r = post(pod, "/v1/chat/completions/render", body);
      assertThat(r.statusCode()).as(body).isEqualTo(400);
      assertThat(r.body()).as(body).contains("BadRequestError");
    }
  }
}
