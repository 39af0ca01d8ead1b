package io.llmgw.api;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A bearer token kept in a file (a Kubernetes Secret mount). Errors name the file, never what it holds. */
public final class TokenFile {
  private TokenFile() {}

  /** The token in {@code file}, surrounding whitespace dropped; null for a null file. */
  public static String read(Path file) throws IOException {
    if (file == null) {
      return null;
    }
    String token;
    try {
      token = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (CharacterCodingException e) {
      throw new IOException(file + " holds bytes that are not text, not a token in printable ASCII");
    }
    if (token.isEmpty()) {
      throw new IOException(file + " holds no token");
    }
    if (token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
      throw new IOException(file + " holds a token with spaces or characters outside printable ASCII");
    }
    return token;
  }
}
