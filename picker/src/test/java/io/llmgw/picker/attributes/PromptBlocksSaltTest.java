package io.llmgw.picker.attributes;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.PrefixHasher;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 3: a salted prompt's blocks match only prompts under the same salt, as vLLM's block hashes, which
 * the salt enters, do; the unsalted keep their blocks.
 */
class PromptBlocksSaltTest {
  static final byte[] PROMPT = "The same long document, block after block. ".repeat(20)
      .getBytes(StandardCharsets.UTF_8);
  static final PrefixHasher HASHER = new PrefixHasher();

  static long[] blocks(String salt) {
    return new PromptBlocks(HASHER, max -> PROMPT, salt).of("chat-lora");
  }

  @Test
  void aSaltKeepsTheBlocksApartAndTheSameSaltMatches() {
    assertThat(blocks(null)).isNotEmpty().isEqualTo(new PromptBlocks(HASHER, max -> PROMPT).of("chat-lora"));
    assertThat(blocks("tenant-a")).hasSameSizeAs(blocks(null)).isEqualTo(blocks("tenant-a"));
    for (int i = 0; i < blocks(null).length; i++) {
      assertThat(blocks("tenant-a")[i]).isNotEqualTo(blocks(null)[i]).isNotEqualTo(blocks("tenant-b")[i]);
    }
  }
}
