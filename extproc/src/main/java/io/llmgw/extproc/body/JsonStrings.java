package io.llmgw.extproc.body;

import java.nio.charset.StandardCharsets;

/** Decoding of a JSON string's raw bytes (between its quotes, already checked by {@link JsonByteScanner}). */
final class JsonStrings {
  private JsonStrings() {}

  static String decode(byte[] raw, int length) {
    int firstEscape = -1;
    for (int i = 0; i < length; i++) {
      if (raw[i] == '\\') {
        firstEscape = i;
        break;
      }
    }
    if (firstEscape < 0) {
      return new String(raw, 0, length, StandardCharsets.UTF_8);
    }
    StringBuilder out = new StringBuilder(length);
    int run = 0;
    int i = 0;
    while (i < length) {
      if (raw[i] != '\\') {
        i++;
        continue;
      }
      out.append(new String(raw, run, i - run, StandardCharsets.UTF_8));
      byte e = raw[i + 1];
      switch (e) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(new String(raw, i + 2, 4, StandardCharsets.US_ASCII), 16));
          i += 4;
        }
        default -> out.append((char) e); // " \ /
      }
      i += 2;
      run = i;
    }
    out.append(new String(raw, run, length - run, StandardCharsets.UTF_8));
    return out.toString();
  }
}
