package io.llmgw.extproc.body;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Rewrites {@code "model":"<target>"} back to {@code "model":"<requested>"} in a streamed response, chunk by chunk.
 * Only bytes that could still become a match are held back, so an SSE event that ends a chunk is never delayed.
 */
public final class ResponseModelRewriter {
  private final byte[][] patterns;
  private final byte[][] replacements;
  private byte[] carry = new byte[0];

  public ResponseModelRewriter(String target, String requested) {
    String from = RequestBody.jsonString(target);
    String to = RequestBody.jsonString(requested);
    patterns = new byte[][] {("\"model\":" + from).getBytes(StandardCharsets.UTF_8),
        ("\"model\": " + from).getBytes(StandardCharsets.UTF_8)};
    replacements = new byte[][] {("\"model\":" + to).getBytes(StandardCharsets.UTF_8),
        ("\"model\": " + to).getBytes(StandardCharsets.UTF_8)};
  }

  public ByteString apply(ByteString chunk, boolean endOfStream) {
    byte[] data = concat(carry, chunk.toByteArray());
    ByteArrayOutputStream out = new ByteArrayOutputStream(data.length + 16);
    int i = 0;
    outer : while (i < data.length) {
      for (int p = 0; p < patterns.length; p++) {
        if (matchesAt(data, i, patterns[p])) {
          out.write(replacements[p], 0, replacements[p].length);
          i += patterns[p].length;
          continue outer;
        }
      }
      if (!endOfStream && couldStartMatch(data, i)) {
        break;
      }
      out.write(data[i]);
      i++;
    }
    carry = Arrays.copyOfRange(data, i, data.length);
    return ByteString.copyFrom(out.toByteArray());
  }

  private boolean couldStartMatch(byte[] data, int i) {
    int remaining = data.length - i;
    for (byte[] p : patterns) {
      if (remaining < p.length && Arrays.equals(data, i, data.length, p, 0, remaining)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matchesAt(byte[] data, int i, byte[] p) {
    return data.length - i >= p.length && Arrays.equals(data, i, i + p.length, p, 0, p.length);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    if (a.length == 0) {
      return b;
    }
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
