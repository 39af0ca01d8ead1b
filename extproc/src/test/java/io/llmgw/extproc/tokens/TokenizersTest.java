package io.llmgw.extproc.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29: the tokenizers behind the precise prefix scorer. The simulator's is held to its documented rule (the
 * simulator's own tests hold the simulator to the same rule); a Hugging Face {@code tokenizer.json} loads offline and
 * encodes completion prompts, and says when it cannot (chat without a template, a prompt cut short).
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

  @Test
  void aHuggingFaceTokenizerLoadsOfflineAndEncodesCompletionPrompts(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokenizer.json");
    Files.writeString(file, """
        {"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
         "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
         "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2, "again": 3},
                   "unk_token": "[UNK]"}}
        """);
    try (HuggingFaceTokenizer hf = new HuggingFaceTokenizer(file)) {
      assertThat(hf.name()).startsWith("hf:");
      assertThat(hf.tokenIds(utf8("\"hello world again\""), true)).containsExactly(1, 2, 3);
      assertThat(hf.tokenIds(utf8("[\"hello unknown\"]"), true)).containsExactly(1, 0);
      assertThat(hf.tokenIds(utf8("[\"hello\", \"world\"]"), true)).as("several prompts").isNull();
      assertThat(hf.tokenIds(utf8("[{\"role\":\"user\",\"content\":\"hello\"}]"), true)).as("chat: no template")
          .isNull();
      assertThat(hf.tokenIds(utf8("\"hello wor"), false)).as("cut short").isNull();
    }
    Path garbage = Files.writeString(dir.resolve("bad.json"), "{not a tokenizer");
    assertThatThrownBy(() -> new HuggingFaceTokenizer(garbage)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad.json");
  }
}
