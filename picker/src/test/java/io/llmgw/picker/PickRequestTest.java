package io.llmgw.picker;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import org.junit.jupiter.api.Test;

/** Issue 49: every wither copies, the attribute one too: a request shared by several picks is never changed. */
class PickRequestTest {
  @Test
  void settingAnAttributeLeavesTheOriginalAsItWas() {
    PickRequest base = PickRequest.of("m").withPromptTokens(10);
    PromptTokens tokens = new PromptTokens(() -> new int[] {1, 2, 3});
    PickRequest withTokens = base.with(RequestAttributes.PROMPT_TOKENS, tokens);
    assertThat(withTokens.attribute(RequestAttributes.PROMPT_TOKENS)).isSameAs(tokens);
    assertThat(base.attribute(RequestAttributes.PROMPT_TOKENS)).isNull();
    assertThat(withTokens.promptTokens()).isEqualTo(10);
    assertThat(base.withPrefixBlocks(new long[] {7}).prefixBlocks()).containsExactly(7);
    assertThat(base.prefixBlocks()).isEmpty();
  }
}
