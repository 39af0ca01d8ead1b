package io.llmgw.extproc.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokenizers behind the precise prefix scorer. The simulator's is held to its documented rule (the simulator's own
 * tests hold the simulator to the same rule); a model's Hugging Face files load offline, render chat and Responses
 * requests and tokenize completions on their own threads, bounded in flight and in time, and count what they refuse.
 */
class TokenizersTest {
  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static int simId(String group) {
    return (int) Math.floorMod(LongHashFunction.xx().hashChars(group), 128_256);
  }

  @Test
  void theSimulatorsTokenizerRendersChatAsTheSimulatorDoesAndKeepsOnlyWhatCannotChangeWhenCut() {
    SimTokenizer sim = new SimTokenizer();
    String messages = "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\","
        + "\"text\":\"Hi\"}]}]";
    int[] ids = sim.tokenIds(utf8(messages), true);
    String rendered = "system: Be brief.\nuser: Hi\n"; // 27 characters: 7 tokens, the last of 3 characters
    assertThat(ids).hasSize(7);
    assertThat(ids[0]).isEqualTo(simId("syst"));
    assertThat(ids[6]).isEqualTo(simId(rendered.substring(24)));
    assertThat(sim.tokenIds(utf8("\"plain prompt\""), true)).containsExactly(simId("plai"), simId("n pr"),
        simId("ompt"));

    int[] cut = sim.tokenIds(utf8(messages.substring(0, messages.indexOf("{\"role\":\"user\""))), false);
    assertThat(cut).as("only the complete first message, whole groups only").containsExactly(
        java.util.Arrays.copyOf(ids, "system: Be brief.\n".length() / 4));
    assertThat(sim.tokenIds(utf8("[{\"role\":"), true)).as("a whole prompt that does not parse").isNull();
    assertThat(sim.tokenIds(utf8("42"), true)).isNull();
  }

  static Path model(Path dir) throws Exception {
    Files.writeString(dir.resolve("tokenizer.json"), """
        {"version": "1.0", "truncation": null, "padding": null,
         "added_tokens": [{"id": 4, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                           "normalized": false, "special": true}],
         "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "decoder": null,
         "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
             {"Sequence": {"id": "A", "type_id": 0}}], "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
             "special_tokens": {"<s>": {"id": "<s>", "ids": [4], "tokens": ["<s>"]}}},
         "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2, "user": 3, "<s>": 4,
                   "system": 5}, "unk_token": "[UNK]"}}
        """);
    Files.writeString(dir.resolve("tokenizer_config.json"), """
        {"bos_token": "<s>", "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.role }} {{ m.content }} \
        {% endfor %}{% if add_generation_prompt %}assistant{% endif %}"}
        """);
    return dir;
  }

  static ByteString body(String json) {
    return ByteString.copyFromUtf8(json);
  }

  @Test
  void aModelsOwnFilesRenderChatAndResponsesAndTokenizeCompletionsOffTheCallersThread(@TempDir Path dir)
      throws Exception {
    try (HuggingFaceTokenizer hf = new HuggingFaceTokenizer(model(dir), 1, 4, Duration.ofSeconds(30))) {
      assertThat(hf.name()).startsWith("hf:");
      assertThat(hf.tokenize("/v1/chat/completions", body("{\"messages\": [{\"role\": \"user\", \"content\": "
          + "\"hello world\"}]}")).join()).as("<s>user hello world assistant").containsExactly(4, 3, 1, 2, 0);
      assertThat(hf.tokenize("/v1/responses", body("{\"instructions\": \"hello\", \"input\": \"world\"}"))
          .join()).as("<s>system hello user world assistant").containsExactly(4, 5, 1, 3, 2, 0);
      assertThat(hf.tokenize("/v1/completions", body("{\"prompt\": \"hello world\"}")).join())
          .as("a completion gets the special tokens the tokenizer adds").containsExactly(4, 1, 2);
      assertThat(hf.tokenize("/v1/completions", body("{\"prompt\": [\"world\"]}")).join()).containsExactly(4, 2);
      assertThat(hf.tokenize("/v1/completions", body("{\"prompt\": [7, 8, 9]}")).join()).containsExactly(7, 8, 9);
      assertThat(hf.count(TokenizeOutcome.TOKENIZED)).isEqualTo(5);
      assertThat(hf.tokenize("/v1/embeddings", body("{\"input\": \"hello\"}")).join()).isNull();
      assertThat(hf.tokenIds(utf8("\"hello\""), true)).as("nothing on the caller's thread").isNull();
    }
  }

  @Test
  void garbageRequestsAreRefusedCountedAndMatchedApproximately(@TempDir Path dir) throws Exception {
    try (HuggingFaceTokenizer hf = new HuggingFaceTokenizer(model(dir), 1, 4, Duration.ofSeconds(30))) {
      for (String bad : new String[] {"{not json", "[]", "{\"messages\": 5}", "{\"messages\": [{\"content\": 1}]}",
          "{\"messages\": [], \"add_generation_prompt\": true, \"continue_final_message\": true}"}) {
        assertThat(hf.tokenize("/v1/chat/completions", body(bad)).join()).as(bad).isNull();
      }
      assertThat(hf.tokenize("/v1/completions", body("{\"prompt\": [\"a\", \"b\"]}")).join()).isNull();
      assertThat(hf.tokenize("/v1/responses", body("{\"input\": 5}")).join()).as("input neither text nor items")
          .isNull();
      assertThat(hf.tokenize("/v1/responses", body("{\"previous_response_id\": \"r1\", \"input\": \"x\"}"))
          .join()).as("the history lives in the engine").isNull();
      assertThat(hf.count(TokenizeOutcome.REFUSED)).isEqualTo(8);
      assertThat(hf.tokenize("/v1/chat/completions", body("{\"messages\": [{\"role\": \"user\", \"content\": "
          + "[{\"type\": \"text\", \"text\": \"hello\"}, {\"type\": \"image_url\", \"image_url\": "
          + "{\"url\": \"data:,\"}}]}]}")).join()).as("the engine keys its blocks with the image's hash").isNull();
      assertThat(hf.count(TokenizeOutcome.MULTIMODAL)).isEqualTo(1);
      assertThat(hf.count(TokenizeOutcome.TOKENIZED)).isZero();
    }
  }

  @Test
  void tokenizingIsBoundedInFlightAndInTime(@TempDir Path dir) throws Exception {
    List<Runnable> queued = new ArrayList<>();
    ExecutorService held = new AbstractExecutorService() { // runs nothing until the test says so
      @Override
      public void execute(Runnable r) {
        queued.add(r);
      }

      @Override
      public void shutdown() {
      }

      @Override
      public List<Runnable> shutdownNow() {
        return List.of();
      }

      @Override
      public boolean isShutdown() {
        return false;
      }

      @Override
      public boolean isTerminated() {
        return false;
      }

      @Override
      public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
      }
    };
    String chat = "{\"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}";
    try (HuggingFaceTokenizer hf = new HuggingFaceTokenizer(model(dir), held, 1, Duration.ofMillis(50))) {
      CompletableFuture<int[]> first = hf.tokenize("/v1/chat/completions", body(chat));
      assertThat(hf.tokenize("/v1/chat/completions", body(chat)).join()).as("over the bound: at once").isNull();
      assertThat(hf.count(TokenizeOutcome.BUSY)).isEqualTo(1);
      assertThat(first.join()).as("given up after 50 ms").isNull();
      assertThat(hf.count(TokenizeOutcome.TIMEOUT)).isEqualTo(1);
      assertThat(hf.tokenize("/v1/chat/completions", body(chat)).join()).as("the first still works").isNull();
      assertThat(hf.count(TokenizeOutcome.BUSY)).isEqualTo(2);
      queued.get(0).run(); // the work ends: its permit returns
      CompletableFuture<int[]> next = hf.tokenize("/v1/chat/completions", body(chat));
      queued.get(1).run();
      assertThat(next.join()).containsExactly(4, 3, 1, 0);
    }
  }

  @Test
  void aModelThatCannotBeReadIsRefusedNamingTheFile(@TempDir Path dir) throws Exception {
    Path garbage = Files.writeString(dir.resolve("tokenizer.json"), "{not a tokenizer");
    assertThatThrownBy(() -> new HuggingFaceTokenizer(garbage, 1, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tokenizer.json");
    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> new HuggingFaceTokenizer(empty, 1, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no tokenizer.json");
    Path badConfig = Files.createDirectory(dir.resolve("badconfig"));
    model(badConfig);
    Files.writeString(badConfig.resolve("tokenizer_config.json"), "{not json");
    assertThatThrownBy(() -> new HuggingFaceTokenizer(badConfig, 1, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tokenizer_config.json");
    Path oddTemplate = Files.createDirectory(dir.resolve("oddtemplate"));
    model(oddTemplate);
    Files.writeString(oddTemplate.resolve("tokenizer_config.json"), "{\"chat_template\": 42}");
    try (HuggingFaceTokenizer base = new HuggingFaceTokenizer(oddTemplate, 1, 1, Duration.ofSeconds(1))) {
      assertThat(base.tokenize("/v1/chat/completions", body("{\"messages\": []}")).join())
          .as("no usable template: chat is matched approximately").isNull();
      assertThat(base.tokenize("/v1/completions", body("{\"prompt\": \"hello\"}")).join()).containsExactly(4, 1);
    }
    Path badTemplate = Files.createDirectory(dir.resolve("badtemplate"));
    model(badTemplate);
    Files.writeString(badTemplate.resolve("tokenizer_config.json"), "{\"chat_template\": \"{% if %}\"}");
    assertThatThrownBy(() -> new HuggingFaceTokenizer(badTemplate, 1, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chat template");
  }
}
