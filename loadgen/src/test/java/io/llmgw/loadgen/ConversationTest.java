package io.llmgw.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The chat workload's sessions: 4–8 turns, each a valid body repeating the conversation before it, fixed by the seed. */
class ConversationTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachTurnRepeatsTheConversationSoFarThenAsksAgain() throws Exception {
    Workload chat = Workload.chat("base");
    Conversation c = new Conversation(chat, "s-1", new Random(7));
    assertThat(c.turns()).isBetween(4, 8);
    JsonNode previous = null;
    int turns = 0;
    while (c.hasNext()) {
      JsonNode body = JSON.readTree(c.nextBody());
      turns++;
      JsonNode messages = body.get("messages");
      assertThat(body.get("model").asText()).isEqualTo("base");
      assertThat(messages.size()).isEqualTo(2 * turns);
      assertThat(messages.get(0).get("role").asText()).isEqualTo("system");
      assertThat(messages.get(messages.size() - 1).get("role").asText()).isEqualTo("user");
      if (previous != null) {
        for (int i = 0; i < previous.size(); i++) {
          assertThat(messages.get(i)).as("turn %d keeps message %d", turns, i).isEqualTo(previous.get(i));
        }
        assertThat(messages.get(previous.size()).get("role").asText()).isEqualTo("assistant");
      }
      previous = messages;
    }
    assertThat(turns).isEqualTo(c.turns());
  }

  @Test
  void theSeedFixesEveryPromptAndSessionsDiffer() {
    Workload chat = Workload.chat("base");
    Conversation a = new Conversation(chat, "a", new Random(3));
    Conversation same = new Conversation(chat, "a", new Random(3));
    Conversation other = new Conversation(chat, "b", new Random(4));
    String first = a.nextBody();
    assertThat(same.nextBody()).isEqualTo(first);
    assertThat(other.nextBody()).isNotEqualTo(first);
  }
}
