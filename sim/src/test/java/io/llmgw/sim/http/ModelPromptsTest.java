package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.sim.SimCommand;
import io.llmgw.sim.engine.SimConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 50: with a model's own files (--tokenizer hf:DIR) the simulator counts the prompt's real tokens, renders the
 * same ids at its render endpoint, and answers 400 for what vLLM would refuse: the template's own refusal, tool call
 * arguments that are not JSON; a --tokenizer value it cannot use is refused naming it.
 */
class ModelPromptsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A word-level model: "<s>" 4, hello 1, world 2, user 3, [UNK] 0; its template refuses a role named "bad". */
  static Path model(Path dir) throws Exception {
    Files.writeString(dir.resolve("tokenizer.json"), """
        {"version": "1.0", "truncation": null, "padding": null,
         "added_tokens": [{"id": 4, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                           "normalized": false, "special": true}],
         "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
         "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2, "user": 3, "<s>": 4},
                   "unk_token": "[UNK]"}}
        """);
    Files.writeString(dir.resolve("tokenizer_config.json"), """
        {"bos_token": "<s>", "chat_template": "{{ bos_token }}{% for m in messages %}{% if m.role == 'bad' %}\
        {{ raise_exception('no bad roles') }}{% endif %}{{ m.role }} {{ m.content }} {% endfor %}"}
        """);
    return dir;
  }

  @Test
  void promptsAreCountedRenderedAndRefusedAsTheModelsFilesSay(@TempDir Path dir) throws Exception {
    try (ChatTokenizer model = ChatTokenizer.open(model(dir));
        SimPods pod = SimPods.start(SimConfig.builder().build(), List.of("127.0.0.91"), 0, model)) {
      String chat = "{\"model\":\"" + SimConfig.DEFAULT_MODEL + "\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\","
          + "\"content\":\"hello world\"}]}";
      var answer = StructuredAnswersTest.post(pod, "/v1/chat/completions", chat);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(JSON.readTree(answer.body()).path("usage").path("prompt_tokens").asInt())
          .as("<s> user hello world").isEqualTo(4);
      var rendered = StructuredAnswersTest.post(pod, RenderEndpoint.CHAT_PATH, chat);
      assertThat(JSON.readTree(rendered.body()).path("token_ids").toString()).isEqualTo("[4,3,1,2]");

      var refused = StructuredAnswersTest.post(pod, "/v1/chat/completions", chat.replace("\"user\"", "\"bad\""));
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.body()).contains("no bad roles");
      var badArguments = StructuredAnswersTest.post(pod, "/v1/chat/completions", "{\"model\":\""
          + SimConfig.DEFAULT_MODEL + "\",\"messages\":[{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{"
          + "\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{not json\"}}]}]}");
      assertThat(badArguments.statusCode()).isEqualTo(400);
      assertThat(badArguments.body()).contains("not JSON");
    }
  }

  @Test
  void aTokenizerValueThatCannotBeUsedIsRefusedNamingIt(@TempDir Path dir) {
    assertThat(SimCommand.model("sim")).isNull();
    assertThatThrownBy(() -> SimCommand.model("gpt-4")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sim or hf:DIR");
    assertThatThrownBy(() -> SimCommand.model("hf:" + dir.resolve("missing"))).isInstanceOf(
        IllegalArgumentException.class).hasMessageContaining("no tokenizer.json");
  }
}
