package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token files: stripped, refused when empty, odd or missing, and never quoted in the error. */
class TokenFileTest {
  @TempDir
  Path dir;

  @Test
  void aTokenIsReadStrippedAndRefusedWhenItIsNotOneWithoutShowingTheContent() throws Exception {
    assertThat(TokenFile.read(Files.writeString(dir.resolve("token"), "  abc123\n"))).isEqualTo("abc123");
    assertThat(TokenFile.read(null)).isNull();
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertThatThrownBy(() -> TokenFile.read(empty)).hasMessageContaining("holds no token");
    Path spaced = Files.writeString(dir.resolve("spaced"), "top secret");
    assertThatThrownBy(() -> TokenFile.read(spaced)).hasMessageNotContaining("secret");
    Path binary = Files.write(dir.resolve("binary"), new byte[] {'a', 0, (byte) 0xff});
    assertThatThrownBy(() -> TokenFile.read(binary)).hasMessageContaining("printable ASCII");
    assertThatThrownBy(() -> TokenFile.read(dir.resolve("missing"))).hasMessageContaining("missing");
  }
}
