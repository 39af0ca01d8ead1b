package io.llmgw.chattemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A chat request made into the template's input as vLLM's chat_utils makes it. */
class TemplateInputTest {
  private static JsonNode json(String s) throws Exception {
    return Conversations.JSON.readTree(s);
  }

  @Test
  void textPartsAreJoinedByNewlinesOrKeptAsPartsForTemplatesThatLoopOverThem() throws Exception {
    JsonNode request = json("""
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"},
          {"type": "image_url", "image_url": {"url": "data:,"}}, {"type": "text", "text": "b"}]},
          {"role": "assistant", "content": null}]}""");
    TemplateInput asString = TemplateInput.ofChat(request, false);
    assertThat(asString.messages()).containsExactly(Map.of("role", "user", "content", "a\nb"),
        Map.of("role", "assistant", "content", ""));
    TemplateInput asParts = TemplateInput.ofChat(request, true);
    assertThat(asParts.messages().get(0)).isEqualTo(Map.of("role", "user", "content", List.of(
        Map.of("type", "text", "text", "a"), Map.of("type", "image"), Map.of("type", "text", "text", "b"))));
    assertThat(asString.addGenerationPrompt()).isTrue();
    assertThat(asString.hasMedia()).as("an image: vLLM keys its blocks with the image's hash").isTrue();
    assertThat(TemplateInput.ofChat(json("{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}"), false)
        .hasMedia()).isFalse();
    assertThat(asString.tools()).isNull();
  }

  @Test
  void toolCallArgumentsBecomeObjectsAndToolsGetVllmsNullFields() throws Exception {
    TemplateInput input = TemplateInput.ofChat(json("""
        {"messages": [{"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\\"b\\": 1, \\"a\\": [2]}"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}}]},
          {"role": "assistant", "content": "x", "tool_calls": []},
          {"role": "tool", "tool_call_id": "c1", "content": "42", "name": "f"}],
         "tools": [{"type": "function", "function": {"name": "f", "strict": true}}],
         "chat_template_kwargs": {"enable_thinking": false, "messages": "not allowed"}}"""), false);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> calls = (List<Map<String, Object>>) ((Map<?, ?>) input.messages().get(0))
        .get("tool_calls");
    assertThat(calls.get(0).get("function")).isEqualTo(Map.of("name", "f", "arguments", Map.of("b", 1, "a",
        List.of(2))));
    assertThat(((Map<?, ?>) calls.get(1).get("function")).get("arguments")).isEqualTo(Map.of());
    assertThat(((Map<?, ?>) input.messages().get(1)).containsKey("tool_calls")).isFalse(); // vLLM drops it
    assertThat(((Map<?, ?>) input.messages().get(2)).get("tool_call_id")).isEqualTo("c1");
    assertThat(((Map<?, ?>) input.messages().get(2)).get("name")).isEqualTo("f");
    assertThat(Conversations.JSON.valueToTree(input.tools()).toString())
        .isEqualTo("[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":null,\"parameters\":null,"
            + "\"strict\":true}}]");
    assertThat(input.kwargs()).isEqualTo(Map.of("enable_thinking", false));
  }

  @Test
  void continuingTheFinalMessageCutsTheRenderedChatAfterItsText() {
    List<Object> messages = List.of(Map.of("role", "assistant", "content", "The answer is "));
    assertThat(FinalMessage.continueFrom("<s>The answer is<end>\n<gen>", messages)).isEqualTo("<s>The answer is");
    assertThat(FinalMessage.continueFrom("<s>The answer is <end>", messages)).isEqualTo("<s>The answer is ");
    assertThatThrownBy(() -> FinalMessage.continueFrom("<s>other<end>", messages))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not appear");
  }

  @Test
  void requestsVllmRefusesAreRefusedNamingWhy() throws Exception {
    for (String bad : List.of("{}", "{\"messages\": {}}", "{\"messages\": [1]}", "{\"messages\": [{}]}",
        "{\"messages\": [{\"role\": \"user\", \"content\": 5}]}",
        "{\"messages\": [{\"role\": \"assistant\", \"content\": \"\", \"tool_calls\": [{\"function\": "
            + "{\"name\": \"f\", \"arguments\": \"{not json\"}}]}]}",
        "{\"messages\": [], \"tools\": [{\"type\": \"function\"}]}",
        "{\"messages\": [], \"continue_final_message\": true}")) {
      assertThatThrownBy(() -> TemplateInput.ofChat(json(bad), false)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
