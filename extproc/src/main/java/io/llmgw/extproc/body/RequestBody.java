package io.llmgw.extproc.body;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The request body as received: chunks joined without copying (a {@link ByteString} rope), the model value replaced
 * by splicing, and cut again into chunks for re-emission.
 */
public final class RequestBody {
  /** Envoy's limit for one streamed body mutation is a little above this; we stay under it. */
  public static final int MAX_CHUNK_BYTES = 62_000;

  private ByteString body = ByteString.EMPTY;

  public void append(ByteString chunk) {
    body = body.concat(chunk);
  }

  /** The body will not be sent on (answered by the EPP, or already re-emitted): its bytes need not stay reachable. */
  public void discard() {
    body = ByteString.EMPTY;
  }

  public int size() {
    return body.size();
  }

  public ByteString bytes() {
    return body;
  }

  /** Returns a body whose {@code model} string is {@code newModel}, everything else byte for byte the same. */
  public ByteString withModel(ExtractedBody found, String newModel) {
    ByteString value = ByteString.copyFrom(jsonString(newModel), StandardCharsets.UTF_8);
    return body.substring(0, (int) found.modelStart()).concat(value).concat(body.substring((int) found.modelEnd()));
  }

  /** The first {@code maxBytes} of the prompt's JSON text (for prefix hashing). */
  public byte[] promptPrefix(ExtractedBody found, int maxBytes) {
    if (!found.hasPrompt()) {
      return new byte[0];
    }
    int end = (int) Math.min(found.promptEnd(), found.promptStart() + maxBytes);
    return body.substring((int) found.promptStart(), end).toByteArray();
  }

  /** At least one chunk, so the end of stream always has a frame to ride on. */
  public static List<ByteString> chunks(ByteString body, int max) {
    if (body.isEmpty()) {
      return List.of(ByteString.EMPTY);
    }
    List<ByteString> out = new ArrayList<>(body.size() / max + 1);
    for (int off = 0; off < body.size(); off += max) {
      out.add(body.substring(off, Math.min(body.size(), off + max)));
    }
    return out;
  }

  static String jsonString(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
