package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientTextTest {
  @Test
  void item5ControlCharactersCannotForgeALogLineAndLengthIsBounded() {
    assertThat(ClientText.quote("abc\nINFO forged\r\u0000é")).isEqualTo("'abc?INFO forged???'");
    assertThat(ClientText.quote("x".repeat(10_000))).hasSize(ClientText.MAX_CHARS + 5).endsWith("...'");
    assertThat(ClientText.quote(null)).isEqualTo("(none)");
    assertThat(ClientText.quote("sql-lora")).isEqualTo("'sql-lora'");
  }
}
